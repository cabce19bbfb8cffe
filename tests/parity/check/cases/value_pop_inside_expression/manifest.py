import torch

manifest = {
    "skip_ops": [1, "a"],
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True, "training": [True]},
}
# A pop whose value is used changes its dict or list as a pop on a line of its own does.
skipped = manifest.pop("skip_ops")
flag = manifest["capabilities"]["training"].pop()
