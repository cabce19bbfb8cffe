# No dtype declared at all: OpInfo and generated placeholders.
manifest = {
    "manifest_version": 1,
    "device_name": "my_backend",
    "supported_dtypes": {},
    "semantic_level": 4,
    "capabilities": {"inference": True, "training": True, "foreach": True},
}
