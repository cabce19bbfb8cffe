import torch

manifest = dict(
    manifest_version=1,
    device_name="auto",
  *  capabilities=dict(inference=True, training=1),
    supported_dtypes={torch.float32: True},
)
