import torch

def caps(*names):
    return {name: True for name in names}

DTYPES = [torch.float32, torch.float16, "float64", "nope"]

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": caps("inference", "training", "teleport"),
    "supported_dtypes": {dt: True for dt in DTYPES},
    "skip_ops": sorted({"aten.mul", "aten.add"}),
    "custom_test_dirs": [f"tests_{i}" for i in range(2)],
}
