# Regex-heavy dtype map: anchored and unanchored patterns, a negative lookahead that
# filters nothing, a non-bool non-str value, an ieee754 regex list.
import torch

OPS_F16 = r"^(add|mul|matmul|mm|bmm)$"

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: OPS_F16,
        torch.bfloat16: r"^(?!aten\.linalg_|aten\.fft_)",
        torch.float64: r"linalg|fft",
        torch.int64: True,
        torch.int32: r"^(?:index|scatter|gather)",
        torch.bool: True,
        torch.complex64: False,
        torch.uint8: 1,
    },
    "semantic_level": 6,
    "capabilities": {
        "inference": True,
        "training": True,
        "rng": True,
        "device_generator": False,
        "foreach": True,
        "sparse": True,
        "device_api": True,
        "ieee754": [r"^add", r"^(sub|mul)$", r"sin"],
    },
    "skip_ops": [],
}
