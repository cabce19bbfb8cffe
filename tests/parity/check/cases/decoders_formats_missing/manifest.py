manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True, "custom_quantized_decode": True},
    "custom_container_decoders": {
        "nf4": "pkg:decode_nf4",
        "mxint8": None,
    },
}
