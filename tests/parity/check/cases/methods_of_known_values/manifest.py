import torch

caps = {"inference": True, "training": False}
manifest = {
    "manifest_version": 1,
    "device_name": "CUDA".lower(),
    "capabilities": {
        "inference": caps.get("inference"),
        "training": caps.get("training", True),
        "serialization": caps.get("serialization", "no"),
    },
    "skip_ops": "aten::add, aten::mul".replace(" ", "").split(","),
    "skip_tests": ["test_" + name.upper() for name in ["a"]] if False else [],
    "ieee754_seed": "aten::add".find("::") - 4 + "a,b,c".count(","),
}
