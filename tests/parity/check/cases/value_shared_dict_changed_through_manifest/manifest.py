import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
caps = manifest["capabilities"]
caps["training"] = "yes"
hardware = {}
manifest["hardware"] = hardware
manifest["hardware"]["gpu"] = 1
hardware["vram"] = "lots"
backup = dict(manifest["hardware"])
backup["extra"] = 1
