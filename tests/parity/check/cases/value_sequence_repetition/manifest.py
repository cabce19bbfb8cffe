import torch

limits = {}
limits[2 * ("max_threads",)] = 1
manifest = {
    "manifest_version": (3 * ["a"], (1, 2) * 2, True * [0], limits),
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "skip_ops": 0 * ["aten.add"],
}
limits[9 * []] = 2
