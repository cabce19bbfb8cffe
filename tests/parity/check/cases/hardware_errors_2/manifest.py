import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "hardware": {
        "memory_model": "Unified",
        "device_memory_gb": [16, 0, True],
        "system_memory_gb": True,
        "oom_recoverable": None,
    },
}
