import torch

# Builtins that take any value of the right type, and raise for the others.
sizes = sorted([3, 1, 2])
count = len({"a": 1})
names = list("ab")
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["limits"] = len(print)
