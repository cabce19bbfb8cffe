import torch

ops = ["aten::add", "aten::mul"]
manifest = {
    "manifest_version": 1,
    "device_name": " CPU ".strip().lower(),
    "capabilities": {"inference": True},
    "skip_ops": ",".join(ops).split(","),
}
# str.join of a list holding an int: TypeError at load time.
extra = "|".join(["aten::div", 2])
