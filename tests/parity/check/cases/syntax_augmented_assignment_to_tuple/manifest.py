import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
extra = {"training"}
# A stray comma makes the target a tuple, which no augmented assignment takes.
extra ,|= {"rng"}
