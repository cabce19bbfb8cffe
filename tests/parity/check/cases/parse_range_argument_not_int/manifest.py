import torch

dirs = []
for i in range(.3):
    dirs.append(f"suite_{i}")
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}, "custom_test_dirs": dirs}
