import torch

# Starred items in a subscript (3.11): tree-sitter reads a star only before a name or call.
limits = {}
limits[*"ab"] = 1
limits[*["c"], *(2, 3)] = 2
limits[*[]] = 3
manifest = {
    "manifest_version": (limits, limits[*{"a": 0, "b": 1}]),
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
