import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "supported_dtypes": {
        torch.float32: "^aten\\.(add|mul",
        torch.float16: r"\p{L}+",
        torch.bfloat16: r"(?<=aten\.\w+)add",
        torch.float64: "*add",
        torch.int8: "aten.[abc",
        "int16": "a)",
        "torch.int32": "[z-a]",
        " int64 ": "(?P<op>a)(?P<op>b)",
        "uint8": "(?",
        "bool": r"\x4",
        "complex64": "add**",
        "complex128": "(?<n",
        "uint16": "(?i",
        "uint32": "\\",
        "bogus_dtype": "(unclosed",
    },
}
