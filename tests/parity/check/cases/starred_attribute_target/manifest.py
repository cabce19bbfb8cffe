import torch

# `*torch.x, = ...` binds the attribute `torch.x`: a list of the items.
*torch.extra_ops, = ("aten::add", 7)
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "skip_ops": torch.extra_ops,
}
