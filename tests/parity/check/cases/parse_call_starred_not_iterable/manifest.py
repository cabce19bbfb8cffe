import torch

manifest = {
    "manifest_version": 1,
    # Beside other arguments, `*x` extends the argument list: x must be iterable.
    "device_name": "c p u".replace(" ", "", *[1]) + "".join(["a"], *2),
    "capabilities": {"inference": True},
}
