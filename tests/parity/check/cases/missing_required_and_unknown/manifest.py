import torch

manifest = {
    "device": "cuda",
    "manifest-version": 1,
    "capabilites": {"inference": True},
    "supported_dtype": {torch.float32: True},
}
manifest[5] = "int key"
manifest[("a", "b")] = "tuple key"
manifest[None] = "none key"
manifest[torch.float32] = "dtype key"
