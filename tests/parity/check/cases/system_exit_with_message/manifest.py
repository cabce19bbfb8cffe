import sys

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True, "trainng": True},
}
if False:
    sys.exit(2)
# A code that is no int is printed to stderr and the status is 1; nothing is validated.
sys.exit(f"backend {manifest['device_name']} is not ready")
