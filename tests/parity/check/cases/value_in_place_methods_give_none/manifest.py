import torch

ops = ["aten.mul", "aten.add"]
# sort() sorts in place and gives None.
skipped = ops.sort()
manifest = {
    "manifest_version": (ops, skipped),
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "skip_ops": ops + [].append("aten.sub"),
}
