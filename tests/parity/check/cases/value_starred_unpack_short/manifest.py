import torch

vendor, model, *rest = ["acme"]
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
