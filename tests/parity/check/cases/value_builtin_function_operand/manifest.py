import torch

# Builtins are values: a class or function is a key, `int | None` a union, and the
# manifest's values are checked as what they are.
OPTIONAL_INT = int | None
KINDS = {int: "integer", str: "string", IOError: "os"}
manifest = {
    "manifest_version": print,
    "device_name": str,
    "capabilities": {"inference": len, "training": KINDS[OSError] == "os"},
    "supported_dtypes": {torch.float32: f"{print}"},
    "skip_ops": [repr(sorted), len.__name__],
}
# A builtin function as an operand: its type is in the TypeError.
manifest["skip_ops"] += ["aten::add"] * max
