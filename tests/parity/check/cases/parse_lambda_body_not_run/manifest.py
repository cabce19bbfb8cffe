import torch

# A lambda's body runs when it is called, not when it is defined.
pick = lambda name: undefined_helper(name)
handlers = {"first": lambda: later_name, "second": lambda x=1: x}
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
