import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "tolerance_overrides": {
        "matmul:float32": (1e-3, 1e-3),
        "matmul:notadtype": (1e-3, 1e-3),
    },
}
