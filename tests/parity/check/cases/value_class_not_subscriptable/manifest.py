import torch

# `list[int]` is an alias; `int` has no `__class_getitem__`.
sizes = list[int]
manifest = {
    "manifest_version": int[1],
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
