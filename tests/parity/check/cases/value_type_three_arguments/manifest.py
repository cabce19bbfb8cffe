import torch

# `type` typed before a key's tuple: a 3-argument type() call.
Backend = type("Backend", (), {})
print(Backend, type(Backend))

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "tolerance_overrides": {
        type("matmul", torch.float32, "extra"): (1e-3, 1e-3),
    },
}
