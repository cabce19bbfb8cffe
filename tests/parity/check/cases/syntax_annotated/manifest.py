import torch
from typing import Any

manifest: dict[str, Any] = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True, "compile": "maybe"},
    "skip_ops": [],
}
