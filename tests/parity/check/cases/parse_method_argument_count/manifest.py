import torch

manifest = {
    "manifest_version": 1,
    # One argument too many for str.replace: TypeError at load time (its wording is
    # CPython 3.11's; 3.13 words it otherwise).
    "device_name": "c p u".replace(" ", "", 1, 2),
    "capabilities": {"inference": True},
}
