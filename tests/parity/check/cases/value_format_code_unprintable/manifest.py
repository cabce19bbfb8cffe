import torch

memory = 16
pairs = [a + b for a, b in zip("xy" "zw", "ab")]
# A space is no format code: CPython names it by its hex value.
manifest = {
    "manifest_version": pairs,
    "device_name": f"cpu-{memory:>5 }",
    "capabilities": {"inference": True},
}
