import torch

caps = {"inference": True}
dtypes = []
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": caps,
    "skip_ops": dtypes,
}
caps["bogus"] = True
dtypes.append(3)
