import torch

skipped = []
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "skip_ops": skipped,
}
manifest["capabilities"].update({"training": True})
skipped.extend(["aten::add"])
# A method called on a line of its own with the wrong count of arguments raises when the
# manifest loads.
skipped.append()
