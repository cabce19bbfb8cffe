import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
        "ieee754": (),
    },
}
manifest["capabilities"]["ieee754"] = ("^aten\\.add", r"^aten\.mul$")
