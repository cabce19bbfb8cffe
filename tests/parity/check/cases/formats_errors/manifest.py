import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "supported_container_formats": {
        "nf4": True,
        "int4": True,
        "fp8_e4m3fn": "yes",
        "mxfp4": 1,
        "NF4": False,
        7: True,
    },
}
