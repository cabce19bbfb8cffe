import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "skip_ops": "aten::add",
}

# `skip_ops` holds a str, which has no `remove`: AttributeError at load time.
manifest["skip_ops"].remove("aten::add")
