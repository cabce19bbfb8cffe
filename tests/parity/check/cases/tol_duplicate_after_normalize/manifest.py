import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "tolerance_overrides": {
        "matmul:float32": "first",
        "matmul/torch.float32": "second",
        ("matmul", torch.float32): (1e-3, 1e-3),
        ("exact", "float64"): None,
        "exact:torch.float64": {"rtol": "x"},
    },
}
