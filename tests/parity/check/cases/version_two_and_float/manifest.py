import torch

manifest = {
    "manifest_version": 2.5,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
}
