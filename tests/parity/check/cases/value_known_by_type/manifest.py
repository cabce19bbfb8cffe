import torch

# `range(...)` is an object of type 'range': it has no unary minus.
levels = range(1, 4)
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "skip_ops": [],
}
manifest["semantic_level"] = -levels
