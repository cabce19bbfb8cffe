import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["manifest_version"] = {3, 1, True, 2}
manifest["capabilities"] = {"inference", "training"}
manifest["skip_ops"] = {"add"}
manifest["device_name"] = {"cpu"} | {"cuda"}
