import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "resource_limits": {"cleanup_threshold_pct": int(" 9_0 "), "max_tensor_size_mb": float("1_024.5")},
}

# int() of a string that is not a base-10 integer raises ValueError at load time.
manifest["resource_limits"]["max_device_memory_mb"] = int("nan")
