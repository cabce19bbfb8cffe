import torch

# The callee, then the arguments left to right, then the operands of `+` left to right:
# `torch.f` fails before the undefined name `loat32` is looked up.
manifest = dict(
    manifest_version=1,
    device_name=undefined_later if False else "cpu",
    capabilities={"inference": True},
    supported_dtypes={torch.f + loat32: True},
)
