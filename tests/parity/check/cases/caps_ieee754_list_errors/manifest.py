import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
        "ieee754": [
            "^aten\\.add$",
            r"\p{Greek}",
            "*mul",
            "(?<=ab|c)d",
            "[abc",
            "line1\nline2(",
        ],
    },
}
