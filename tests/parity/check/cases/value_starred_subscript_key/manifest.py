import torch

NAMES = ("inference", "training")
LEVELS = {("inference", "training"): 3, ("inference", "training", 1): 4}
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "semantic_level": LEVELS[*NAMES],
    "device_count": LEVELS[*NAMES, 1],
}
# A starred item must be iterable.
manifest["max_samples"] = LEVELS[*manifest["device_count"]]
