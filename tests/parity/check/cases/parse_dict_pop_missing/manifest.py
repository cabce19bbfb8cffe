import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
# pop of a key the dict does not hold, its value used: KeyError at load time.
skipped = manifest.pop("skip_ops")
