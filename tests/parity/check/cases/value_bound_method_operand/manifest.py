import torch

skipped = ["aten::mul"]
NAME = repr(sorted)
manifest = {
    "manifest_version": [NAME, len.__name__, OSError.__name__],
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "skip_ops": skipped,
}
# A method of a list, without its call: a builtin_function_or_method, which `-` refuses.
skipped.extend-(["aten::add"])
