import torch

# Unpacking a set: one element is known; more give values in an order only CPython knows
# (small ints excepted), but their count is known.
(level,) = {3}
first, second = {2, 1}
a, b = {"x", "y"}
manifest = {
    "manifest_version": first,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "semantic_level": level + second,
}
extra, = {"rng"}
manifest["device_name"] += {"training"}
