manifest = {
    "manifest_version": 1,
    "device_name": "auto",
    "capabilities": {"inference": True, "custom_quantized_decode": True},
    "supported_container_formats": {"nf4": True, "mxfp4": True, "uint8": True, "af4": True, "e8m0fnu": True},
    "custom_container_decoders": {
        "nf4": "class:def",
        "mxfp4": "pkg:decode\n",
        "uint8": "_:_",
        "af4": "a.b.c:D.e.f",
        "e8m0fnu": "päckage:decode",
    },
}
