import torch

# Unions and generic aliases made from builtins: their reprs, equality and hashing.
optional = int | None
mapping = dict[str, int | None]
same = {int | None: "a", None | int: "b", list[int]: "c", list[int,]: "d", tuple[()]: "e"}
manifest = {
    "manifest_version": (
        optional,
        mapping,
        int | int,
        type[int] | list[int] | None,
        len(same),
        list[int, "a", None, 1.5, b"x"],
        str | bytes | str,
        f"{optional}",
    ),
    "device_name": "cpu",
    "capabilities": {"inference": True},
}
