import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "resource_limits": {
        "max_device_memory_mb": 0,
        "max_system_memory_mb": "auto",
        "max_tensor_size_mb": True,
        "cleanup_threshold_pct": 0,
        "max_host_memory_mb": 10,
        "cleanup_threshold": 50,
    },
}
