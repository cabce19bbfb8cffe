import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "skip_ops": ["aten.add", 5, None],
    "device_count": 1.0,
}
