manifest = {
    "manifest_version": 3,
    "device_name": 5,
    "capabilities": {"inference": "yes", "inference": True},
    "manifest_version": 1,
    "device_name": "auto",
    "skip_ops": "oops",
    "skip_ops": [],
    "hardware": {"memory_model": "unified"},
    "hardware": {"memory_model": "bogus"},
}
