import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
        "ieee754": [],
        "fp8": False,
    },
}
