import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: False,
        torch.bfloat16: "^aten\\.add$",
        torch.float64: 1,
        torch.int32: None,
        torch.int64: ["aten.add", "aten.mul"],
        torch.int8: 0.5,
        torch.uint8: {"aten.add": True},
        "int16": ("aten.add",),
        "nonsense": None,
        torch.bool: "",
    },
}
