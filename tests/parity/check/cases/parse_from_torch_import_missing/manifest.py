from torch import float32, Float16

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "supported_dtypes": {float32: True},
}
