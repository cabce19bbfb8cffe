import torch

base_caps = ["inference"]
# A set built from a list is a set, whatever its elements: sets do not add.
caps = {*base_caps} + {"training"}
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {cap: True for cap in caps},
}
