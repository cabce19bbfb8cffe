from typing import Any

import torch

# `typing.Any` is a class from CPython 3.11 on (its type is `_AnyMeta`): `+Any` raises.
Extra = dict[str, +Any]
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True},
}
