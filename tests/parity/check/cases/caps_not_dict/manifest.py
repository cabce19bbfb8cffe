manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": ["inference", "training"],
    "custom_container_decoders": {},
}
