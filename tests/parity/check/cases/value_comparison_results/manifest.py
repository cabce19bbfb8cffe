import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["device_name"] = 1 < 2
manifest["show_traceback"] = [1, 2] < [1, 3] and "inference" in manifest["capabilities"]
