import torch
import torchcts_parity_nonexistent_backend

manifest = {"manifest_version": 1, "device_name": "auto", "capabilities": {}}
