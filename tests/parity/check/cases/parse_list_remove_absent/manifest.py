import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "skip_ops": ["aten::add", "aten::mul"],
}

manifest["skip_ops"].remove("aten::mul")
# Removing an item the list does not hold raises ValueError at load time.
manifest["skip_ops"].remove("aten::div")
