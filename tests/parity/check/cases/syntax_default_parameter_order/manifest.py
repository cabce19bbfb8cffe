import torch


def pick(kind="cpu", fallback):
    return kind


manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
