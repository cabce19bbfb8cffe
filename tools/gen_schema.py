"""Regenerate server/core/data/schema.json from a real torchcts + torch install.

The language server's schema is data: key sets, capability order, container formats,
torch dtype names (with aliases), tolerance categories and defaults, and semantic level
descriptions all come from the real package so that validation, hover and completion
agree with it.  Run with the Python of a venv that has torchcts 0.4.1 and torch 2.12.1:

    /path/to/venv/bin/python tools/gen_schema.py > server/core/data/schema.json
"""
import json
import sys

import torch
import torchcts
from torchcts.core import manifest_schema as ms
from torchcts.core import quantized_decoders as qd
from torchcts.core import semantic_levels as sl
from torchcts.core import tolerances as tol


def dtype_table():
    """Every attribute of the torch module that is a dtype, with its canonical str()."""
    rows = []
    for name in sorted(dir(torch)):
        try:
            value = getattr(torch, name)
        except Exception:
            continue
        if isinstance(value, torch.dtype):
            rows.append({
                "attr": name,
                "canonical": str(value),
                "is_floating_point": value.is_floating_point,
                "is_complex": value.is_complex,
            })
    return rows


def tolerance_defaults():
    rows = []
    for (category, dtype), tiered in tol.DEFAULT_TOLERANCES.items():
        rows.append({
            "category": category,
            "dtype": str(dtype),
            "golden": [tiered.golden.rtol, tiered.golden.atol],
            "usable": [tiered.usable.rtol, tiered.usable.atol],
        })
    return rows


schema = {
    "generated_by": "tools/gen_schema.py",
    "torchcts_version": getattr(torchcts, "__version__", "0.4.1"),
    "torch_version": torch.__version__.split("+")[0],
    "top_level_keys": sorted(ms.KNOWN_TOP_LEVEL_KEYS),
    "required_top_level_keys": list(ms._REQUIRED_TOP_LEVEL_KEYS),
    "capabilities": list(ms.CAPABILITY_ORDER),
    "hardware_keys": sorted(ms._KNOWN_HARDWARE_KEYS),
    "resource_limit_keys": sorted(ms._KNOWN_RESOURCE_LIMIT_KEYS),
    "memory_models": sorted(ms._VALID_MEMORY_MODELS),
    "container_formats": sorted(qd.KNOWN_CONTAINER_FORMATS),
    "tolerance_categories": sorted(ms._KNOWN_TOLERANCE_CATEGORIES),
    "tolerance_defaults": tolerance_defaults(),
    "dtypes": dtype_table(),
    # Every public attribute of the torch module: `torch.<name>` for any other name raises
    # AttributeError when the manifest is loaded.
    "torch_attributes": sorted(n for n in dir(torch) if not n.startswith("__")),
    "semantic_levels": {
        "min": sl.MIN_SEMANTIC_LEVEL,
        "max": sl.MAX_SEMANTIC_LEVEL,
        "default_requested": sl.DEFAULT_REQUESTED_SEMANTIC_LEVEL,
        "descriptions": {str(k): v for k, v in sl.SEMANTIC_LEVEL_DESCRIPTIONS.items()},
    },
}
json.dump(schema, sys.stdout, indent=1, sort_keys=False)
sys.stdout.write("\n")
