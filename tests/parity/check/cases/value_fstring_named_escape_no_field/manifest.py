import torch

SEP = "\N{FULL STOP}"
ESCAPE = "\\"

# `\N{...}` in an f-string is a character, not a replacement field: the entries after the
# escape are read (`{LATIN SMALL LETTER A}` is no name). In a raw f-string `{SEP}` is a field.
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True, "trainng": True},
    "supported_dtypes": {
        torch.float32: f"^aten\N{FULL STOP}(add|mul)$",
        torch.float64: f"^aten{ESCAPE}\N{FULL STOP}mm(",
        torch.bfloat16: rf"^aten\N{SEP}mm(",
        torch.float16: f"\N{LATIN SMALL LETTER A}ten\\N{SEP}(",
    },
    "skip_ops": [f"\N{LATIN SMALL LETTER A}ten.add", f"x\N{EM DASH}y", 3],
}
