import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "resource_limits": [("max_device_memory_mb", 100)],
}
