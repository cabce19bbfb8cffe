import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
# The field's expression is tokenized as code: a decimal literal with a leading zero is
# refused, on the f-string's line.
manifest["device_name"] = f"cpu{7 ** 0600}"
