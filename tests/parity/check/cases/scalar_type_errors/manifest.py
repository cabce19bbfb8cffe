import torch

manifest = {
    "manifest_version": 1,
    "device_name": ["cuda"],
    "capabilities": {
        "inference": True,
    },
    "backend_import": 5,
    "device_count": 0,
    "ieee754_seed": -1,
    "max_samples": 1.5,
    "max_samples_ieee754": True,
    "show_traceback": "yes",
}
