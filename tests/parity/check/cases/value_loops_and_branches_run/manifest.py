import torch

DTYPES = [torch.float32, torch.bfloat16]
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {},
    "supported_dtypes": {},
}
# A loop over a known list runs item by item; a known condition picks its branch.
for dtype in DTYPES:
    manifest["supported_dtypes"][dtype] = True
for cap in ("inference", "trainng", "rng"):
    manifest["capabilities"][cap] = cap != "rng"
if len(DTYPES) > 1:
    manifest["semantic_level"] = 9
elif torch.float16 in DTYPES:
    manifest["semantic_level"] = 2
else:
    manifest["semantic_level"] = 3
