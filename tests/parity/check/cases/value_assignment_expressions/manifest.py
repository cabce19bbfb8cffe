import torch

if (level := 3) > 2:
    name = f"cpu-{level}"
manifest = {
    "manifest_version": (level, f"{(doubled := level * 2)}", doubled),
    "device_name": name,
    "capabilities": {"inference": True},
}
