import torch
from torch import float16 as F16

VERSION = 1
NAME = "my" "_" "device"
PREFIX = r"^aten\."
COMMON_CAPS = {"inference": True, "training": False, "frobnicate": True}
EXTRA = {"hardware": {"memory_model": "unified"}}
OPS = ["aten.add"] + ["aten.mul"]

manifest = {
    "manifest_version": VERSION,
    "device_name": NAME,
    "capabilities": {**COMMON_CAPS, "training": True, "ieee754": PREFIX + "(add|mul"},
    "supported_dtypes": {F16: PREFIX + "add", torch.float32: rf"{PREFIX}mm$", "bad" + "dtype": True},
    "skip_ops": OPS,
    **EXTRA,
    "max_samples": 2 * 5,
}

manifest["semantic_level"] = 10
manifest["device_count"] = -1
manifest.update({"show_traceback": "no"})
manifest["capabilities"]["streams"] = "sometimes"
del manifest["max_samples"]
manifest.setdefault("max_samples_ieee754", -2)
