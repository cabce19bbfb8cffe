import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True, "ieee754": ["[[a]]", "[a||b]"]},
    "supported_dtypes": {
        torch.float32: "[[a]]",
        torch.float16: "^aten\\.[a&&b]",
        torch.bfloat16: "[a~~b]",
        torch.float64: "[a||b]",
        torch.int32: "x[[:alpha:]]",
        torch.int64: "[a--b]",
    },
}
