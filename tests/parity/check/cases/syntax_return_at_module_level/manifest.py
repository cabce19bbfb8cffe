import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "supported_dtypes": {torch.float32: True},
    "capabilities": {"inference": True, "training": False},
}
return manifest
