import torch

manifest = {
    "manifest_version": 1,
    "device_name": "mps",
    "backend_import": None,
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: r"^(add|mul|matmul|mm|bmm)$",
        torch.bfloat16: False,
        torch.float64: False,
        torch.int64: True,
        torch.bool: True,
    },
    "semantic_level": 4,
    "hardware": {
        "memory_model": "unified",
        "device_memory_gb": "auto",
        "system_memory_gb": "auto",
        "oom_recoverable": True,
    },
    "resource_limits": {
        "max_device_memory_mb": 8192,
        "max_tensor_size_mb": 256,
        "cleanup_threshold_pct": 80,
    },
    "capabilities": {
        "inference": True,
        "training": True,
        "rng": True,
        "device_api": True,
        "streams": False,
        "events": False,
        "multi_device": False,
        "sparse": False,
        "compile": False,
        "ieee754": r"^(add|sub|mul|div)$",
    },
    "skip_ops": ["_nested_tensor_from_mask"],
    "tolerance_overrides": {
        "matmul:torch.float16": {"rtol": 1e-2, "atol": 1e-2},
    },
}
