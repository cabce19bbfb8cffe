import sys

# A module's attribute set by the manifest itself exists afterwards.
sys.torchcts_backend = "cpu"

manifest = {
    "manifest_version": 1,
    "device_name": sys.torchcts_backend,
    "capabilities": {"inference": True},
}
