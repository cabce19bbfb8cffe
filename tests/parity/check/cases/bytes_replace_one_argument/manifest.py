import torch

# bytes.replace needs the old and the new bytes.
device = b"my-backend".replace(b"-").decode()
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
}
