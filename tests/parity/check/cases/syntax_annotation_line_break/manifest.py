import torch

manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}}
# An `if` lost its keyword: `name:` ends at the line break, CPython refuses it.
cuda_only:
    manifest["device_name"] = "cuda"
