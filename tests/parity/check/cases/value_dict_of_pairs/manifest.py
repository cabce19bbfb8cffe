import torch

limits = dict([("max_memory_gb", 16), ("max_threads", 8)])
hardware = dict(zip(["memory_model", "vendor"], ["unified", "acme"]))
manifest = {
    "manifest_version": (limits, hardware),
    "device_name": "cpu",
    "capabilities": dict(["inference"]),
}
