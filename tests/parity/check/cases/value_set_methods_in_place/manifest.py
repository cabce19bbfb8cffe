import torch

flags = {"inference"}
flags.add("training")
flags.add("inference")
flags.discard("rng")
removed = [flags.remove("training")]
manifest = {
    "manifest_version": len(flags),
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
# A set changed in place: removing what is no longer there raises KeyError.
flags.remove("training")
