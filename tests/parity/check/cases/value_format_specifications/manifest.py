import torch

# f-string format specifications: `format(value, spec)` for strs, ints and bools.
memory = 16
manifest = {
    "manifest_version": (f"{memory:>6}|{255:#x}|{1234567:,}|{'ab':^6}|{-42:08d}|{True:d}|{'abc':.2}|{7:=+5}|{65:c}"),
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
