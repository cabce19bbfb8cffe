import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "tolerance_overrides": {
        "matmul:float32": {"rtol": 1e-3, "atol": 1e-3},
        "matmul:float16": {"rtol": "1e-2", "atol": None, "tol": 1},
        "matmul/bfloat16": {"rtool": 1, "atl": 2},
        "conv:float32": ("1e-3", 1e-3),
        "conv:float16": [1e-3, None],
        ("conv", torch.bfloat16): [1e-3, 1e-3, 1e-3],
        ("norm", "float32"): "1e-3",
        ("norm", "float16"): None,
        "norm:bfloat16": 1e-3,
        "elementwise:float64": {"rtol": True, "atol": False},
        "elementwise:float32": (True, 1),
        "elementwise:float16": {},
        "nonexistent_category:float32": (1e-3, 1e-3),
        "Matmul:float32": "bad",
        " loss : torch.float32 ": {"atol": 1e-4},
        "default:int64": (0, 0),
    },
}
