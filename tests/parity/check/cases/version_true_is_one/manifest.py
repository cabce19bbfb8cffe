import torch

manifest = {
    "manifest_version": True,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
}
manifest["show_traceback"] = True
