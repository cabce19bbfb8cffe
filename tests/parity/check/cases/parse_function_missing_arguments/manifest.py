import torch

def device(vendor, model, revision):
    """A device name; its body is more than one return, so only the call's binding is read."""
    name = f"{vendor}-{model}"
    return f"{name}-{revision}"

manifest = {
    "manifest_version": 1,
    "device_name": device("acme"),
    "capabilities": {"inference": True},
}
