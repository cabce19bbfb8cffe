import torch

# A starred statement ending on a comma is one statement (a tuple): tree-sitter joined it
# to the next line's assignment.
*supported,

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
