import torch

# An int beyond 64 bits divided or mixed with a float: the quotient is rounded once, as
# CPython rounds it; float % and // keep the divisor's sign; a negative power is a float.
SCALE = 123456789012345678901234567890123456789012345 * -10**40
manifest = {
    "manifest_version": SCALE / 7 % 10**45,
    "device_name": f"cpu{(2**60 + 1) / 3}",
    "capabilities": {"inference": True},
    "device_count": -7.5 % 2,
    "max_samples": 10**20 + 0.5,
    "semantic_level": 7.5 // -2,
    "ieee754_seed": 10**-3,
}

