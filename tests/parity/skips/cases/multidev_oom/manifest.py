# Two devices, OOM not recoverable, a tensor-size resource limit.
import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cuda",
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: True,
    },
    "device_count": 2,
    "semantic_level": 8,
    "hardware": {
        "memory_model": "discrete",
        "device_memory_gb": 16,
        "oom_recoverable": False,
    },
    "resource_limits": {"max_tensor_size_mb": 512},
    "capabilities": {
        "inference": True,
        "training": True,
        "multi_device": True,
        "streams": True,
        "events": True,
        "device_api": True,
        "pinned_memory": True,
        "ieee754": False,
    },
    "skip_ops": [],
}
