import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
for op in ["aten::add"]:
    pass
# The condition runs before the block, whatever the block holds.
if cuda_only:
    manifest["device_name"] = "cuda"
