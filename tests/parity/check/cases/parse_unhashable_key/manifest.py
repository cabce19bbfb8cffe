import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {},
    "tolerance_overrides": {["matmul", "float32"]: (1e-3, 1e-3)},
}
