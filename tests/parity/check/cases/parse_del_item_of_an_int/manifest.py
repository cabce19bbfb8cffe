import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": 4,
    "skip_ops": ["aten::add"],
}

del manifest["skip_ops"][0]
# `capabilities` holds an int: deleting an item of it raises TypeError at load time.
del manifest["capabilities"]["training"]
