import torch

manifest = {
    "manifest_version": 1,
    "device_name": "",
    "capabilities": {
        "inference": True,
    },
    "backend_import": None,
    "device_count": 16,
    "ieee754_seed": 0,
    "max_samples": 0,
    "max_samples_ieee754": 0,
    "show_traceback": False,
    "semantic_level": 1,
}
