import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
        "Inference": True,
        "training ": True,
        "ieee-754": True,
        5: True,
        None: False,
        ("inference", "training"): True,
        torch.float32: True,
        "quantization": "yes",
    },
}
