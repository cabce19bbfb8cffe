import torch

# The third item is a list: a set comprehension cannot hold it.
ops = ["add", "mul", ["sub"]]
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "skip_ops": {op for op in ops},
}
