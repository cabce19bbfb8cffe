import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
}
# A module-level `raise` ends loading: check-manifest prints the exception's str().
if "supported_dtypes" not in manifest:
    raise ValueError("declare supported_dtypes", 2)
