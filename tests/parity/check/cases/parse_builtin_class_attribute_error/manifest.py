import torch

ERRORS = (OSError.__name__, ValueError.args, int.from_bytes, len({"a", "b"}))
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
# A builtin class has what dir() lists of it and of type: OSError has no `__nam`.
manifest["device_name"] = OSError.__nam
