import torch

manifest = {
    "semantic_level": False,
    "supported_dtypes": "all",
    "capabilities": None,
    "hardware": None,
    "resource_limits": None,
    "tolerance_overrides": "none",
    "supported_container_formats": None,
    "custom_test_dirs": None,
}
