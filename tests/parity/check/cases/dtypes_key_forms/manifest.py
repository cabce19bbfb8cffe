import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "supported_dtypes": {
        torch.float32: True,
        torch.half: True,
        "float32": True,
        "torch.float16": True,
        " torch.bfloat16 ": True,
        "half": True,
        "int": True,
        "torch.notadtype": True,
        5: True,
        None: True,
        (torch.float32, torch.float16): True,
        "torch.": True,
        "Tensor": True,
        "torch.torch.float32": True,
        "FLOAT32": True,
        "float8_e4m3fn": True,
        1.5: True,
        b"float32": True,
    },
}
