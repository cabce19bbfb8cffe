# -*- coding: ut8 -*-
import torch

manifest = {
    "manifest_version": 1,
    "device_name": "café",
    "capabilities": {"inference": True},
}
