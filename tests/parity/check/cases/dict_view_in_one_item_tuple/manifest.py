import torch

enabled_by_default = {"inference": True, "training": False}
capabilities = {}
# A trailing comma makes a one-item tuple of the view: the loop unpacks the view itself.
for name, enabled in enabled_by_default.items(),:
    capabilities[name] = enabled

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "supported_dtypes": [torch.float32],
    "capabilities": capabilities,
    "skip_ops": [*{"add": 1, "mul": 2}.keys()],
}
