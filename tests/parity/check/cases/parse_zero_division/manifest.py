SCALE = 0
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {},
    "max_samples": 10 // SCALE,
}
