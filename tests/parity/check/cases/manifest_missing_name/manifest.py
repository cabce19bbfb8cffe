# The variable is misspelled, so there is no `manifest` at module level.
Manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {},
}
