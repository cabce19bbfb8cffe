import torch

DIRS = 1

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    # Subscripting an int raises TypeError at load time.
    "custom_test_dirs": DIRS["extra_tests"],
}
