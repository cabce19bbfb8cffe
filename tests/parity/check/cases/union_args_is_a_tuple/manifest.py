import torch

# A union's `__args__` is a tuple (`NoneType` among its members): it has no unary plus.
members = +(int | None).__args__
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
}
