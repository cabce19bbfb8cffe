import torch

manifest = {
    "skip_ops": ["aten::add"],
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
level = manifest.pop("semantic_level", 2)
manifest["semantic_level"] = level + 1
# dict.pop gives the value it takes out: a list, which unary + refuses.
skipped = +manifest.pop("skip_ops")
