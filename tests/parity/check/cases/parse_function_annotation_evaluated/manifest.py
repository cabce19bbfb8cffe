import torch

# A def's annotations run when the def does (no `from __future__ import annotations`):
# tree-sitter reads `L[::1]` and `L[:1:]` as types it cannot parse; Python takes them as
# slices, and an index past the end raises.
L = [int, str]


def device_name(a: L[0], b: L[:1:] = "cpu", *rest: L[::1]) -> L[::-1]:
    return b


def count(n: L[5] = 1) -> int:
    return n


manifest = {
    "manifest_version": 1,
    "device_name": device_name(1),
    "capabilities": {"inference": True},
}
