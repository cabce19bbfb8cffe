import torch

memo = 0
ry = 5
# In an f-string field outside brackets `:=` starts the format specification, below an
# operator too (`or`, `+`, `not`); in brackets it is an assignment expression.
manifest = {
    "manifest_version": f"{memo or ry:=>6}|{1 + 2:=^7}|{(z := 3)}|{not 0:=>5}|{z}",
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
