import torch

memory = 16
# In an f-string field `:=` starts a format specification (`=>6`), not an assignment.
manifest = {
    "manifest_version": f"{memory:=>6}|{7:=+5}|{memory:=}",
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
