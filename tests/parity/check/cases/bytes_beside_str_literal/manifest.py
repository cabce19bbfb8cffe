import torch

# Adjacent literals concatenate: a bytes literal beside a str one is a syntax error.
skipped = ["aten::nonzero"
           b"aten::unique"]
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "skip_ops": skipped,
}
