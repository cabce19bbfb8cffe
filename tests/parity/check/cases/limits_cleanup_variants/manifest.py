import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "resource_limits": {
        "cleanup_threshold_pct": None,
        "max_tensor_size_mb": -5,
    },
    "hardware": {"oom_recoverable": True, "memory_model": "discrete"},
}

manifest["resource_limits"]["max_device_memory_mb"] = float("nan")
