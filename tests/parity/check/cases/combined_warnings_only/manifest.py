import torch

manifest = {
    "device_name": "auto",
    "capabilities": {"inference": True, "custom_quantized_decode": False},
    "supported_container_formats": {"mxfp4": True},
    "custom_container_decoders": {"mxfp4": "pkg:decode"},
    "custom_test_dirs": ["gone", "extra_tests"],
}
