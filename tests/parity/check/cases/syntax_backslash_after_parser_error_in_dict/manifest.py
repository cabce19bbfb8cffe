import torch

manifest = {
    "manifest_version": 1,
    "device_name"_:\ "auto",
    "capabilities": {"inference": True},
}
