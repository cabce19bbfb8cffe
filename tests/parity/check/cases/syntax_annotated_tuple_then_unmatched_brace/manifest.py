import torch

device, count: str = "cpu", 1

    "manifest_version": {"inference": True},
    "device_name": device,
    "capabilities": 1,
}
