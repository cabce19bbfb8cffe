import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "supported_dtypes": {torch.notadtype: True},
    "capabilities": {},
}
