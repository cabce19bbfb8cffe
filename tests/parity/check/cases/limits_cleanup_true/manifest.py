import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "resource_limits": {"cleanup_threshold_pct": True, "max_system_memory_mb": None},
}
