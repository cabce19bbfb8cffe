import torch

# A comprehension over nothing never evaluates its body or its later clauses.
extra = []
skipped = [undefined_op(name) for name in extra]
more = {name: undefined_value for name in [] if undefined_flag}
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "skip_ops": [name for name in ["add"] for suffix in [""] if missing_condition],
}
