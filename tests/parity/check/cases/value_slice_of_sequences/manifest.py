import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
manifest["device_name"] = "xcpu"[1:]
manifest["supported_dtypes"] = [torch.float32, torch.int8, torch.bfloat16][::-2]
manifest["capabilities"]["training"] = (True, 1)[1:]
