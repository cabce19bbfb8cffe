import torch

DEBUG = False
if DEBUG:
    extra_skips = ["aten::nonzero"]
else:
    pass
# The branch not taken bound nothing: `extra_skips` is not defined.
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "skip_ops": extra_skips,
}
