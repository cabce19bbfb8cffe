# base with a 1 MB tensor-size limit and int64 removed.
import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: True,
        torch.bfloat16: True,
        torch.bool: True,
    },
    "semantic_level": 4,
    "capabilities": {
        "inference": True,
        "training": True,
        "rng": True,
        "serialization": True,
        "ieee754": True,
    },
    "resource_limits": {"max_tensor_size_mb": 1},
    "skip_ops": ["add"],
}
