import torch

manifest = {
    "manifest_version": 1,
    "device_name": len.__name__,
    "capabilities": {"inference": True},
}
# A builtin function has only the attributes dir(print) lists.
manifest["skip_ops"] = [print.__nme__]
