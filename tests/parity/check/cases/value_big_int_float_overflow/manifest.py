import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
# An int beyond the floats meets a float: converting it raises.
manifest["max_samples"] = 10**400 * 1.0
