import torch

# One starred target per tuple: the compiler refuses a second.
first, *rest = ["float32", "bfloat16"]
*head, last = ["float32", "bfloat16"]
*vendor, *model = ["acme", "x1"]
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
