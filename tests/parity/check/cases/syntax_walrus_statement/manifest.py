import torch

# `:=` binds only inside an expression: as a statement of its own it is invalid syntax.
manifest := {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True, "training": {,}},
}
