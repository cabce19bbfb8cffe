# String dtype keys (only the canonical "torch.X" spelling selects), skip_ops with
# OpInfo names and dispatcher names, an ieee754 regex string.
import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "supported_dtypes": {
        "torch.float32": True,
        "float16": True,
        torch.int64: True,
        "torch.bool": False,
    },
    "semantic_level": 3,
    "capabilities": {
        "inference": True,
        "training": True,
        "rng": True,
        "device_generator": False,
        "serialization": True,
        "ieee754": r"^(add|sub|mul|div)$",
    },
    "skip_ops": ["add", "mul", "aten::mm", "nn.functional.relu", "matmul", "aten::add.Tensor"],
}
