import torch

if torch.cuda.is_available():
    break


def device(kind, kind="cpu"):
    return kind


manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
