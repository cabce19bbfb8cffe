import torch

precision = "fp8"
# `{precision = }` prints its own text, the spaces after `=` included, then the repr.
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True, f"{precision = }": True},
    "skip_ops": [],
}
