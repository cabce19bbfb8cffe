import torch

# A generic alias has `|` and nothing else of the number protocol.
shape: list[int] = [2, 3]
manifest = {
    "manifest_version": -list[int],
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
