import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "skip_ops": ["aten::add"] + ["aten::mul"] * 2,
    # A dtype has no operators: TypeError at load time.
    "supported_dtypes": {torch.float32 @ 2: True},
}
