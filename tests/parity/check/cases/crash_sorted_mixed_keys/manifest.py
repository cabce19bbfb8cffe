import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "tolerance_overrides": {"matmul:float32": {"rtol": 1e-3, 5: 1, "x": 2}},
}
