# base with skip_ops += index_reduce.
import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: True,
        torch.bfloat16: True,
        torch.int64: True,
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
    "resource_limits": {},
    "skip_ops": ["add", "index_reduce"],
}
