import torch

# A function whose body is one return runs at its call, its parameters bound over the
# module's names (read when it is called, not when it is defined).
def capability_flags(*names, enabled=True):
    """Every named capability, set to `enabled`."""
    return {name: enabled for name in names}


def versioned(name, version=SUITE_VERSION if False else 2):
    return f"{name}-v{version}-{suffix}"


suffix = "ci"
manifest = {
    "manifest_version": versioned("suite"),
    "device_name": "cpu",
    "capabilities": capability_flags("inference", "training", "teleport", enabled=False),
}
