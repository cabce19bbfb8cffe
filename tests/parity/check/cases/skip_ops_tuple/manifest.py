import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "skip_ops": ("aten.add", "aten.mul"),
}
