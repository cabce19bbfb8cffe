import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["device_name"] = "cpu" if 1 < 2 < "3" else "cuda"
