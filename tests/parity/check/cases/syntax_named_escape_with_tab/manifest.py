import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu\N{EM	DASH}x",
    "capabilities": {"inference": True},
}
