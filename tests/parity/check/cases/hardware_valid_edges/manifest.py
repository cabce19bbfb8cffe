import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "hardware": {
        "memory_model": "unified",
        "device_memory_gb": [0.5, 1e3],
        "system_memory_gb": None,
        "oom_recoverable": False,
    },
}
