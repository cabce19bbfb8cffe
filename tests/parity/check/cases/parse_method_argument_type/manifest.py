import torch

manifest = {
    "manifest_version": 1,
    # str.replace of an int: TypeError at load time.
    "device_name": "c p u".replace(" ", 2),
    "capabilities": {"inference": True},
}
