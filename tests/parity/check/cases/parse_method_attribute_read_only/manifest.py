import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
# A dict's methods cannot be replaced on the instance.
manifest.pop = None
