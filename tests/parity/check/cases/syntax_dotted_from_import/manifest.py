import torch
from torch import flo.at16 as F16

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "supported_dtypes": {F16: True},
}
