import torch

manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}}
levels: list[int] = [1, 2]
# A module-level annotation is evaluated after the assignment: here a subscript that raises.
cuda_only: manifest["backend_import"] = "cuda"
