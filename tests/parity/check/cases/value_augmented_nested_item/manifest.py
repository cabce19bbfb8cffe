import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["capabilities"]["inference"] *= 2
manifest["skip_ops"] = ["add"]
manifest["skip_ops"] += ("mul", 3)
