import torch

manifest = {
    "manifest_version": 1,
    "device_name\N{": "auto",
    "capabilities": {"inference": True},
}
