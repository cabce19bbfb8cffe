import torch

# The value is evaluated once, then bound to each target from left to right: `manifest`
# first, then an item of a list literal, which a str cannot index.
manifest = ["hardware"]["memory_model"] = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
