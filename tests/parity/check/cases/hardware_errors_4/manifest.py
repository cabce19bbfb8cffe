import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "hardware": {
        "memory_model": None,
        "device_memory_gb": (16, 16),
        "system_memory_gb": -1.5,
    },
}
