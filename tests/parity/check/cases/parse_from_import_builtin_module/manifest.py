import torch
from sys import version_info, exitcode

# sys is built in: the ImportError gives no file, "(unknown location)".
manifest = {"manifest_version": 1, "device_name": "auto", "capabilities": {}}
