manifest = {
    "manifest_version": 1e16,
    "device_name": "auto",
    "capabilities": {"inference": True},
    "tolerance_overrides": {"matmul:float32": {"rtol": 1e-3, "atol": 1e-3, "scale": 0.1 + 0.2}},
}
