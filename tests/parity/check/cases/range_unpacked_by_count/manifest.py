import torch

# `range(1, 4)` has three items: unpacking it into two names raises before the typo below.
low, high = range(1, 4)
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "semantic_level": levels,
}
