# PrivateUse1-style backend with quantized container formats and a custom decoder.
import torch

manifest = {
    "manifest_version": 1,
    "device_name": "my_backend",
    "backend_import": None,
    "supported_dtypes": {
        torch.float32: True,
        torch.int8: True,
        torch.uint8: True,
    },
    "semantic_level": 8,
    "hardware": {"device_memory_gb": "auto", "oom_recoverable": True},
    "capabilities": {
        "inference": True,
        "quantized_container_plumbing": True,
        "custom_quantized_decode": True,
        "native_quantization": True,
        "fp8": True,
        "device_api": True,
        "ieee754": False,
    },
    "supported_container_formats": {
        "int4_symmetric": True,
        "nf4": True,
        "fp8_e4m3fn": True,
        "mxfp4": False,
        "uint4": True,
    },
    "custom_container_decoders": {
        "nf4": "my_backend_pkg.decoders:decode_nf4",
        "uint4": "",
    },
    "skip_ops": [],
}
