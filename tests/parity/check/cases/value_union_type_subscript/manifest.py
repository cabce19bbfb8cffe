import torch

optional = int | None
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["limits"] = {"max_memory_gb": optional[0]}
