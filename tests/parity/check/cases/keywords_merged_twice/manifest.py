import torch

defaults = {"inference": True, "training": False}
# `training` is given twice: once by the `**` mapping, once by name.
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": dict(**defaults, training=True),
}
