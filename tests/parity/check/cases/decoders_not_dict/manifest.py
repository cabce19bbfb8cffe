import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
        "custom_quantized_decode": True,
    },
    "supported_container_formats": {"nf4": True},
    "custom_container_decoders": ["nf4:decode"],
}
