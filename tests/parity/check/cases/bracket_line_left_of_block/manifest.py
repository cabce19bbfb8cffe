import torch

def caps(*names):
    return {name:
True for name in names}

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": caps("inference", "training", "teleport"),
}
