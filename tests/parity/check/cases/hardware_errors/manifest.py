import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "hardware": {
        "memory_model": "shared",
        "device_memory_gb": [],
        "system_memory_gb": 0,
        "oom_recoverable": "yes",
        "gpu_count": 2,
        "memory": "auto",
    },
}
