import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "max_samples": 4,
}

# Deleting a key that was never there stops the load (KeyError), whatever follows.
del manifest["max_samples"]
del manifest["capabilities"]["training"]
manifest["device_count"] = -1
