import torch

memory = 16
manifest = {
    "manifest_version": 1,
    "device_name": f"device-{memory:** 6000}",
    "capabilities": {"inference": True},
}
