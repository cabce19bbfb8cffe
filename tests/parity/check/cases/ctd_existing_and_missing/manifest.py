import torch

manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "custom_test_dirs": [
        "extra_tests",
        "./extra_tests/",
        "missing_tests",
        "manifest.py",
        "",
        ".",
        "..",
        "/",
        "/nonexistent/torchcts-parity/dir",
        "extra_tests/../missing_tests",
    ],
}
