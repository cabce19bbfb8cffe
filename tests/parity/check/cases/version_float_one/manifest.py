import torch

manifest = {
    "manifest_version": 1.0,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
}
