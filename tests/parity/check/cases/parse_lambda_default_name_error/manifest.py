import torch

# A lambda's defaults are evaluated when it is defined.
scale = lambda x, factor=default_factor: x * factor
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
