import sys
import torch

# An f-string is a str whatever its fields (`.upper()` of one is a str too); a list known by
# its type only (sys.argv) still refuses a str index, whatever it holds.
label = f"backend {(lambda: 0)}".upper()
manifest = {
    "manifest_version": 1,
    "device_name": label,
    "capabilities": {"inference": True},
    "ieee754_seed": sys.argv["first"],
}
