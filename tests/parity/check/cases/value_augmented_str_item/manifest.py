import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["skip_ops"] = [manifest["device_name"][0], b"x"[0]]
name = "cpu"
name[0] += "c"
