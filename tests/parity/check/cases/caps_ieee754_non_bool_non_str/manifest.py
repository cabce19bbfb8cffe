import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "ieee754": 1,
        "inference": True,
    },
}
