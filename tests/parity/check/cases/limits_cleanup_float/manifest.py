import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "resource_limits": {"cleanup_threshold_pct": 50.0, "max_system_memory_mb": 1e-9},
}
