import torch

# Sorting compares the second item with the first: a bytes and a str do not order.
dtypes = ["float32", b"float16"]
dtypes.sort()
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "supported_dtypes": dtypes,
}
