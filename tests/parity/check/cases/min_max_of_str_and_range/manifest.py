import torch

# min and max compare each item with the best so far: a str (an f-string whose field is a
# function, so not known statically) and a range never order.
LEVELS = [3, 1, 2]
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "semantic_level": max(LEVELS),
    "notes": max(range(3), f"{(lambda: 1)}"),
}
