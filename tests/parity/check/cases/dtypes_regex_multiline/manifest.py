import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "supported_dtypes": {
        torch.float32: "aten\\.add\n(aten",
        torch.float16: """^aten\\.(
    add|
    mul
  [xyz""",
        torch.bfloat16: "(?x) aten \n  \\. (add | mul \n",
    },
}
