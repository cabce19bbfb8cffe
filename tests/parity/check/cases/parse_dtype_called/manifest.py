import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    # A dtype is not callable: TypeError at load time.
    "supported_dtypes": {torch.float32(1): True},
}
