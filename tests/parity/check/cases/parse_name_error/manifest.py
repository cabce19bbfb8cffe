import torch

manifest = {
    "manifest_version": 1,
    "device_name": DEVICE_NAME,
    "capabilities": {},
}
