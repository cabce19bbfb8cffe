import torch

# A set's elements are evaluated when the manifest loads: `torch.float3` does not exist.
manifest = dict(
    manifest_version=1,
    device_name="cpu",
    capabilities=dict(inference=True),
    supported_dtypes={torch.float3},
)
