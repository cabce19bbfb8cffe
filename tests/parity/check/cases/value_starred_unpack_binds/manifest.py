import torch

# The starred target takes a list of what the others leave.
first, *middle, last = ("float32", "bfloat16", "float16", "int8")
*all_caps, = {"inference": True, "training": False}
manifest = {
    "manifest_version": (first, middle, last),
    "device_name": "cpu",
    "capabilities": {all_caps[0]: True, all_caps[1]: False},
}
