import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
if_known = "inference" not in manifest["capabilities"]
manifest["device_name"] = 1 in torch.float32
