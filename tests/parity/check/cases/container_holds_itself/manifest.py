import torch

# A dict that holds itself: check-manifest reads the inner one's keys as capabilities.
manifest = d = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
}
d["capabilities"] = manifest
