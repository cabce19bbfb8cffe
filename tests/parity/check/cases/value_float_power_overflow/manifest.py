import torch

# A float power beyond the floats raises (errno ERANGE); an int one is exact.
BIG = 7 ** 600
manifest = {
    "manifest_version": 2 ** -1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "max_samples": BIG // 7 ** 599,
    "device_count": 7.0 ** 600,
}
