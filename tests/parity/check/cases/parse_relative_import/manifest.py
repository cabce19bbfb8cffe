import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
# torchcts loads manifest.py as a top-level module: it has no package to import from.
from .backend_config import EXTRA_CAPABILITIES
