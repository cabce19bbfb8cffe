import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "resource_limits": {"cleanup_threshold_pct": 101, "max_device_memory_mb": [1024]},
}

ALT = dict(manifest)
ALT["resource_limits"] = {"cleanup_threshold_pct": True}
