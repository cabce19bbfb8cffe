import torch

def capability_flags(*names, enabled=True):
    return {name: enabled for name in names}

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": capability_flags("inference", enable=False),
}
