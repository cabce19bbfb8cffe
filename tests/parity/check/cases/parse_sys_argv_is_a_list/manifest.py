import sys
import torch

# However long the command line, sys.argv is a list.
arguments = +sys.argv
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
