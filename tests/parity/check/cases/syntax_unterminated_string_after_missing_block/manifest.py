import torch

if torch.cuda.is_available():
device = "cuda"

manifest = {
    "manifest_version": 1,
    "device_name": "cpu,
    "capabilities": {"inference": True},
}
