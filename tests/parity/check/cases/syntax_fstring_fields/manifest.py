import torch

NAME = "acme"
VERSION = 2
PREFIX = r"^aten\."
DTYPE = torch.half

# f-strings are built when the manifest loads: each value below is checked as built.
manifest = {
    "manifest_version": 1,
    "device_name": f"{NAME}_v{VERSION}",
    "backend_import": f"{NAME}.backend",
    "capabilities": {
        "inference": True,
        "ieee754": rf"{PREFIX}(add|mul",
        f"{NAME}_extension": True,
        f"{'train'}ing": f"{True}",
    },
    "supported_dtypes": {
        f"{DTYPE}": True,
        f"float{VERSION * 16}": rf"{PREFIX}mm$",
        f"{DTYPE!r}x": True,
        f"{{float64}}": True,
    },
    "skip_ops": [f"{PREFIX}add", f"{VERSION}"],
    "hardware": {"memory_model": f"{'uni'}fied", "system_memory_gb": f"{VERSION}"},
}
