import torch

device: str: str = "cpu"

manifest = {
    "manifest_version": 1,
    "device_name": device,
    "capabilities": {"inference": True},
}
