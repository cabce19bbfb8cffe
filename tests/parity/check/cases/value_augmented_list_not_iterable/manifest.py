import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
dtypes = [torch.float32]
dtypes += torch.int8
