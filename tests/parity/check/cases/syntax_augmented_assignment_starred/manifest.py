import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
# A star before the target: tree-sitter reads `*manifest` subscripted; CPython refuses it.
*manifest["capabilities"] |= {"training": True}
