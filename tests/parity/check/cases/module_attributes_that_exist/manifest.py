import os
import sys
import torch

# Attributes every CPython 3.10-3.13 has, a dunder, and a submodule torch imports lazily
# (its module __getattr__): none raises.
separator = os.sep
arguments = sys.argv
version = torch.__version__
exporter = torch.onnx

manifest = {"manifest_version": 1, "device_name": "auto", "capabilities": {}}
