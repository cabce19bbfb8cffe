import torch

# A module-level annotation is evaluated: a starred item is spliced into its subscript.
pair: tuple[*(str, int)] = ("cpu", 1)
levels: list[*int] = [1, 2]
manifest = {"manifest_version": 1, "device_name": "cpu", "capabilities": {}}
