import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "tolerance_overrides": {
        "linalg/float32:x": (1e-3, 1e-3),
    },
}
