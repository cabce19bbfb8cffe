import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "supported_dtypes": {
        torch.float16: "(broken",
        torch.half: True,
        "float32": 1,
        "float32": "[still broken",
        torch.float32: None,
        torch.float: False,
    },
}
