import torch
from sys import version_info,

manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}}
