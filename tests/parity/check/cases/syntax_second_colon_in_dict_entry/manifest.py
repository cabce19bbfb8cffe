import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto":,
    "capabilities": {"inference": True},
}
