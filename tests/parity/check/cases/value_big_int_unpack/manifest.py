import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["semantic_level"] ,= 0x1_0000_0000_0000_0000_0000_0000_0000_0000
