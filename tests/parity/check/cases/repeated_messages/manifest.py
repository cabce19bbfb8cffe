# The same message can be printed more than once.
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True, "ieee754": ["(", "(", "[x"]},
    "supported_dtypes": {"nope": "(", "nada": "("},
    "custom_test_dirs": ["gone", "gone", "./gone"],
}
