import torch

# Iterating a generic alias gives it once, unpacked (`*list[int]`, CPython 3.11 and later).
(unpacked,) = list[int]
first, second = dict[str, int]
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
