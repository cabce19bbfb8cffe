import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "supported_container_formats": ["nf4"],
    "custom_container_decoders": "not even a dict",
}
