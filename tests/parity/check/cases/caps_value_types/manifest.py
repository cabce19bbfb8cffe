manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {
        "inference": 1,
        "training": "True",
        "serialization": None,
        "rng": 0,
        "compile": [True],
        "streams": {"enabled": True},
        "events": 1.0,
        "deterministic": True,
        "ieee754": ["^aten\\.add", 5],
    },
}
