import torch

manifest = {
    "manifest_version": 1,
    "device_name": None,
    "capabilities": {
        "inference": True,
    },
    "backend_import": b"bytes_backend",
    "device_count": True,
    "ieee754_seed": "67",
    "max_samples": None,
    "max_samples_ieee754": -3,
    "show_traceback": 1,
}
