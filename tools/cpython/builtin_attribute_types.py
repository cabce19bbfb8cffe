#!/usr/bin/env python3
"""Write server/core/data/builtin_attribute_types.txt: the type of each attribute of a
builtin class that is a method or a descriptor (`list.append` is a `method_descriptor`,
`int.__add__` a `wrapper_descriptor`, `dict.fromkeys` a `builtin_function_or_method`), and
of each such attribute of a builtin function (`print.__ne__` is a `method-wrapper`) and of a
union of builtins (`(int | None).__ne__`, the line `types.UnionType`), so that
the core can say `bad operand type for unary -: 'method_descriptor'` without running Python.

    python3 tools/cpython/builtin_attribute_types.py PYTHON...
    # e.g. the pyenv 3.10 .. 3.13

A line `Name attr:type attr:type ...` holds, for the class `builtins.Name` (or, on the line
`builtin_function_or_method`, for a builtin function such as `print`), each attribute whose
type is one of KINDS, present in every given CPython with the same type; an attribute one of
them lacks, or whose type differs between them, is left out (the core claims nothing there).
"""
import json
import os
import subprocess
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "core", "data", "builtin_attribute_types.txt")

PROBE = r"""
import builtins, json, sys
KINDS = {"method_descriptor", "wrapper_descriptor", "builtin_function_or_method", "classmethod_descriptor",
         "method-wrapper", "getset_descriptor", "member_descriptor"}
def kinds(obj):
    out = {}
    for n in set(dir(obj)) | (set(dir(type)) if isinstance(obj, type) else set()):
        try:
            kind = type(getattr(obj, n)).__name__
        except Exception:
            continue
        if kind in KINDS:
            out[n] = kind
    return out
out = {}
for name in dir(builtins):
    cls = getattr(builtins, name)
    if not isinstance(cls, type) or name in ("Ellipsis", "NotImplemented") or name != cls.__name__:
        continue
    out[name] = kinds(cls)
out["builtin_function_or_method"] = kinds(print)
out["types.UnionType"] = kinds(int | None)
print(json.dumps({"version": "%d.%d.%d" % sys.version_info[:3], "classes": out}))
"""


def main() -> int:
    pythons = sys.argv[1:]
    if not pythons:
        print(__doc__, file=sys.stderr)
        return 2
    merged: dict = {}
    conflicting: dict = {}
    seen: dict = {}
    versions = []
    for python in pythons:
        answer = json.loads(subprocess.run([python, "-I", "-S", "-c", PROBE], capture_output=True, text=True, check=True).stdout)
        versions.append(answer["version"])
        for cls, attributes in answer["classes"].items():
            known = merged.setdefault(cls, {})
            for attr, kind in attributes.items():
                seen[(cls, attr)] = seen.get((cls, attr), 0) + 1
                if known.setdefault(attr, kind) != kind:
                    conflicting.setdefault(cls, set()).add(attr)
    with open(OUT, "w") as f:
        f.write("# attr:type of each builtin class's method and descriptor attributes, the same in CPython %s (tools/cpython/builtin_attribute_types.py)\n" % ", ".join(versions))
        for cls in sorted(merged):
            pairs = [
                "%s:%s" % (a, k)
                for a, k in sorted(merged[cls].items())
                if a not in conflicting.get(cls, ()) and seen[(cls, a)] == len(pythons)
            ]
            f.write(" ".join([cls] + pairs) + "\n")
    print("wrote %s: %d classes, %d conflicting attributes left out" % (OUT, len(merged), sum(map(len, conflicting.values()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
