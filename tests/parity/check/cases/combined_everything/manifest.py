import torch

manifest = {
    "manifest_version": 0,
    "device_name": 7,
    "backend_import": ["pkg"],
    "device_count": "1",
    "ieee754_seed": 1.0,
    "max_samples": -1,
    "max_samples_ieee754": "3",
    "semantic_level": 99,
    "show_traceback": None,
    "supported_dtypes": {
        "torch.float32": "(",
        "nope": None,
        torch.float16: "[[x]]",
    },
    "capabilities": {
        "inference": "yes",
        "warp_drive": True,
        "ieee754": ["ok", "(bad"],
        "custom_quantized_decode": False,
    },
    "skip_ops": [1, 2],
    "hardware": {"memory_model": "hybrid", "device_memory_gb": "16", "system_memory_gb": "lots", "oom_recoverable": 0, "vendor": "x"},
    "resource_limits": {"max_device_memory_mb": -1, "cleanup_threshold_pct": 200, "extra": 1},
    "tolerance_overrides": {"bogus:float32": {"rtol": "a", "btol": 1}},
    "supported_container_formats": {"nf4": "true", "int3": True},
    "custom_container_decoders": {"nf4": "nodots", "int3": "a:b"},
    "custom_test_dirs": ["missing_one", "missing_two"],
    "frobnicate": True,
}
