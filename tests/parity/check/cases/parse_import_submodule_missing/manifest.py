import torch
import os.path
import torch.nn

# torch is found, but it has no submodule `cts_backend_ops`: `No module named
# 'torch.cts_backend_ops'` (the package's folders are listed by its Python, nothing imported).
import torch.cts_backend_ops

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
