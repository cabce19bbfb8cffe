import sys
import torch

# The right side runs before the assignment: the attribute does not exist yet.
sys.torchcts_backend = {"inference": True, "training": sys.torchcts_backend}

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": sys.torchcts_backend,
}
