# CRLF line endings throughout
import torch

manifest = {
    "manifest_version": 0,
    "device_name": "auto",
    "capabilities": {
        "inference": True,
    },
    "hardware": {"memory_model": "shared"},
    "semantic_level": 12,
    "custom_test_dirs": ["not_here"],
}
