import torch

NAME = "acme"

manifest = {
    "manifest_version": 1,
    # A single '}' in an f-string's text must be doubled.
    "device_name": f"{NAME}}",
    "capabilities": {"inference": True},
}
