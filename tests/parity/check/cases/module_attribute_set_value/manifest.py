import sys
import torch

# Attributes the manifest sets on a module hold what it set (a comment that looks
# like one sets nothing: sys.torchcts_extra = 1).
sys.torchcts_backend = {"inference": True, "trainng": True}
torch.cts_device = "privateuseone"

manifest = {
    "manifest_version": 1,
    "device_name": torch.cts_device,
    "capabilities": sys.torchcts_backend,
}
