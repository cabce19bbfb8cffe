import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
# Only a `for` statement's own `in` takes a starred expression.
for name in *["inference"], "training":
    pass
if "inference" in *manifest["capabilities"]:
    manifest["show_traceback"] = True
