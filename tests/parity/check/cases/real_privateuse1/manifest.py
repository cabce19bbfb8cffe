# PrivateUse1-style out-of-tree accelerator ("npu"-like), registered by importing the plugin
import torch

BACKEND = "my_accel"
PLUGIN = "torch_" + BACKEND

manifest = {
    "manifest_version": 1,
    "device_name": BACKEND,
    "backend_import": PLUGIN,
    "supported_dtypes": {
        torch.float16: True,
        torch.float32: True,
        torch.bfloat16: True,
        torch.int8: True,
        torch.int32: True,
        torch.int64: True,
        torch.bool: True,
        torch.float64: False,
        torch.complex64: False,
    },
    "device_count": 4,
    "ieee754_seed": 67,
    "max_samples": 10,
    "max_samples_ieee754": 3,
    "semantic_level": 2,
    "hardware": {
        "memory_model": "discrete",
        "device_memory_gb": [32, 32, 32, 32],
        "system_memory_gb": 256.0,
        "oom_recoverable": True,
    },
    "resource_limits": {
        "max_device_memory_mb": 30000,
        "max_system_memory_mb": 200000,
        "max_tensor_size_mb": 2048,
        "cleanup_threshold_pct": 80,
    },
    "capabilities": {
        "inference": True,
        "training": False,
        "serialization": True,
        "rng": True,
        "device_generator": True,
        "quantized_container_plumbing": True,
        "custom_quantized_decode": True,
        "streams": True,
        "events": True,
        "device_api": True,
        "multi_device": True,
        "ieee754": ("^aten\\.add", "^aten\\.mul"),
    },
    "skip_ops": ["aten.nonzero", "aten.unique"],
    "tolerance_overrides": {
        ("quant_decode", "float16"): {"rtol": 2e-2, "atol": 2e-2},
        "dequant_matmul : bfloat16": (5e-2, 1e-1),
    },
    "supported_container_formats": {"nf4": True, "mxfp4": True, "int8_symmetric": True},
    "custom_container_decoders": {
        "nf4": "torch_my_accel.quant.decoders:decode_nf4",
        "mxfp4": "torch_my_accel.quant:Decoders.mxfp4",
    },
    "custom_test_dirs": ["plugin_tests", "/nonexistent/torchcts-parity/absolute_dir"],
    "show_traceback": True,
}
