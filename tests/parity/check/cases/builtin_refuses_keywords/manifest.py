import torch

ops = ["aten::add", "aten::mul"]
# `len` takes no keyword argument at all.
op_count = len(ops, key=str)
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "skip_ops": ops,
}
