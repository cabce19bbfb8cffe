import torch

capabilities = {}
for name, enabled in {"inference": True, "training": False}.items():
    capabilities[name] = enabled
dirs = []
for i in range(3):
    dirs.append(f"suite_{i}")
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": capabilities,
    "custom_test_dirs": dirs,
}
