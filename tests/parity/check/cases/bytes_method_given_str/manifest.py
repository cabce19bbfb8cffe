import torch

# A bytes method given a str raises TypeError before anything is replaced.
name = b"my backend".replace(" ", "_")
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "skip_ops": [],
}
