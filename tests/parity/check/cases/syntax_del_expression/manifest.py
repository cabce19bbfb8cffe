import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "max_samples": 4,
}

# `+manifest[...]` is an expression, not a target `del` can delete.
del +manifest["max_samples"]
