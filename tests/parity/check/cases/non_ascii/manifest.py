# -*- coding: utf-8 -*-
# Gerät: Beschleuniger für Tensoren — テスト 🚀
import torch

manifest = {
    "manifest_version": 1,
    "device_name": "gerät_ü",   # Gerätename
    "capabilities": {"inference": True, "größe": True, "推論": False},
    "größe": 1,
    "supported_dtypes": {"flöat32": True, torch.float32: "^aten\\.add_é$", torch.float16: "(ñ"},
    "skip_ops": ["aten.ä"],
    "custom_test_dirs": ["tëst_dir", "テスト"],
    "tolerance_overrides": {"matmül:float32": (1e-3, 1e-3)},
}
