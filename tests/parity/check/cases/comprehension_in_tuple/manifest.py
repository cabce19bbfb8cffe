import torch

# A comprehension's `in` takes one expression: `a, b` there is a syntax error.
caps = {name: True for name in "inference", "training"}
manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": caps,
}
