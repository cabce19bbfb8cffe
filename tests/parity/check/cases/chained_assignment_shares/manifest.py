import torch

# `manifest = caps = {...}` binds both names to one dict: a key added through one name is the
# manifest's too.
manifest = caps = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
}
caps["supported_dtypes"] = ["float32"]
caps["extra_backend_notes"] = "added through the other name"
