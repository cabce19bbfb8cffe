import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "hardware": {
        "memory_model": 1,
        "device_memory_gb": 16,
        "system_memory_gb": "16",
        "oom_recoverable": 1,
    },
}
