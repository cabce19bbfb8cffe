import torch

level = 0
manifest = {
    "manifest_version": {-11, -19, 10},
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["skip_ops"] = {level - 11, level - 19, level + 10}
manifest["max_samples"] = {31, True, 2} | {-1}
manifest["manifest_version"] = (manifest["manifest_version"], manifest["max_samples"])
