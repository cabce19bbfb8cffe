import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    # A `*` cannot follow the unary `+`.
    "tolerance_overrides": {"matmul:float32": +*torch.float32},
}
