import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "supported_dtypes": {torch.float32: "a{99999999999}"},
}
