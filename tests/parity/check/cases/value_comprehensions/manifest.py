import torch

# Comprehensions run item by item, over literals, names and the calls made to be iterated.
DTYPES = ["float32", "bfloat16", "float16"]
LIMITS = {"max_memory_gb": 16, "max_threads": 8}
manifest = {
    "manifest_version": (
        [f"tests_{i}" for i in range(2)],
        {name: value * 2 for name, value in LIMITS.items()},
        sorted({len(d) for d in DTYPES}),
        [(i, d) for i, d in enumerate(DTYPES) if i != 1],
        [a + b for a, b in zip("xy", "zw")],
        [k for k in LIMITS.keys()] + [v for v in LIMITS.values()],
        [[j for j in range(i)] for i in range(3)],
    ),
    "device_name": "cpu",
    "capabilities": {"inference": True},
    "supported_dtypes": {dt: True for dt in DTYPES},
}
