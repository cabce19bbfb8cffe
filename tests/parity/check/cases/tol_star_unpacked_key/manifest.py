import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    # `*"conv"` unpacks the string's characters into the key tuple.
    "tolerance_overrides": {(*"conv", None): (1e-3, 1e-5)},
}
