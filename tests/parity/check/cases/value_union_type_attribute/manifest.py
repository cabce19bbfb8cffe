import torch

# A union has its own attributes only; an alias looks others up on its class.
members = (int | None).__args__
append = list[int].append
manifest = {
    "manifest_version": 1,
    "device_name": (int | None).__name__,
    "capabilities": {"inference": True},
}
