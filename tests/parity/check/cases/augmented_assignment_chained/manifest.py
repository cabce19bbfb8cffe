import torch

level = 1
# An augmented assignment is a statement: it cannot be the value of another.
level += bonus += 1
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "semantic_level": level,
}
