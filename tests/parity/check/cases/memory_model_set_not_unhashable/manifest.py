import torch

# `x not in frozenset(...)` looks a set up as the frozenset of its elements: no TypeError,
# just a value that is not a memory model (a list raises `unhashable type`).
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "hardware": {"memory_model": {"unified"}},
}
