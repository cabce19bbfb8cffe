import torch

ma\nifest = dict(
    manifest_version=1,
    device_name="cpu",
    capabilities={"inference": True},
)
