import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["manifest_version"] = 123456789012345678901234567890123456789012345 * -10**40 // 7 % 10**45
manifest["device_count"] = 2**200
manifest["semantic_level"] = 0x1_0000_0000_0000_0000_0000_0000_0000_0000
manifest["ieee754_seed"] = -10**50 >> 3
