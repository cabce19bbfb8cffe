# Intel XPU-style manifest with an out-of-tree import and a project test folder
import torch
from torchcts.core.tolerances import Tol, TieredTol

manifest = {
    "manifest_version": 1,
    "device_name": "xpu",
    "backend_import": "intel_extension_for_pytorch",
    "supported_dtypes": {
        "float16": True,
        "float32": True,
        "bfloat16": True,
        "int32": True,
        "int64": True,
        "bool": True,
        "float64": "^aten\\.(add|mul|sum)$",
    },
    "device_count": 1,
    "ieee754_seed": 1234,
    "max_samples": 25,
    "max_samples_ieee754": 5,
    "semantic_level": 5,
    "hardware": {
        "memory_model": "discrete",
        "device_memory_gb": [48.0],
        "system_memory_gb": "auto",
    },
    "resource_limits": {
        "max_device_memory_mb": 40000,
        "cleanup_threshold_pct": 90,
    },
    "capabilities": {
        "inference": True,
        "training": True,
        "serialization": True,
        "rng": True,
        "autocast": True,
        "compile": True,
        "streams": True,
        "events": True,
        "device_api": True,
        "ieee754": False,
    },
    "skip_ops": [],
    "tolerance_overrides": {
        "matmul:float32": Tol(2e-4, 2e-4),
        "matmul:bfloat16": TieredTol(golden=Tol(3e-2, 6e-2), usable=Tol(1e-1, 2e-1)),
        "default:float16": (1e-2, 1e-2),
    },
    "supported_container_formats": {"int4_symmetric": True, "int8_asymmetric": True},
    "custom_container_decoders": {
        "int4_symmetric": "xpu_backend.quant:decode_int4",
    },
    "custom_test_dirs": ["xpu_tests"],
}
manifest["capabilities"]["custom_quantized_decode"] = True
