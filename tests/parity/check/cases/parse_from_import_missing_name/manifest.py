from typing import Any, Dictionary

# typing has no `Dictionary`: the ImportError names typing's file, which only the loading
# Python knows (recorded as <STDLIB>/typing.py).
manifest: Any = {"manifest_version": 1, "device_name": "auto", "capabilities": {}}
