import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "tolerance_overrides": {},
    "supported_container_formats": {},
    "custom_container_decoders": {},
    "custom_test_dirs": [],
}
