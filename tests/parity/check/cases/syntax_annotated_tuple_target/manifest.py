import torch

device, count: str = "cpu", 1

manifest = {
    "manifest_version": 1,
    "device_name": device,
    "capabilities": {"inference": True},
}
