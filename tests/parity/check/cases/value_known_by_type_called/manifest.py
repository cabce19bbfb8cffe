import torch

names = ["inference", "autograd"]
# `dict` now names a zip object: calling it raises.
dict = zip(names, [True, False])
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": dict([("inference", True)]),
    "skip_ops": [],
}
