#!/usr/bin/env python3
"""Write server/core/data/builtin_class_attributes.txt: the attributes of each builtin class
(`int`, `OSError`, ...) and of `types.UnionType` and `types.GenericAlias`, so that the core can say `type object 'OSError' has no attribute
'x'` for `OSError.x` without running Python; and those of the objects of the types the core
knows values of by their type only (`object:dict_keys`, `object:zip`, `object:function`, ...).

    python3 tools/cpython/builtin_class_attributes.py PYTHON...
    # e.g. the pyenv 3.10 .. 3.13

A line `Name name name ...` holds, for the class `builtins.Name`, every name of `dir(cls)`
and `dir(type)` that `hasattr(cls, name)` finds, in any of the given CPythons: a name
missing from it is missing from the class in every one of them.
"""
import json
import os
import subprocess
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "core", "data", "builtin_class_attributes.txt")

PROBE = r"""
import builtins, json, sys
out = {}
for name in dir(builtins):
    cls = getattr(builtins, name)
    if not isinstance(cls, type) or name in ("Ellipsis", "NotImplemented"):
        continue
    if name != cls.__name__:
        continue  # IOError, EnvironmentError: OSError's
    out[name] = sorted(n for n in set(dir(cls)) | set(dir(type)) if hasattr(cls, n))
# The typing forms builtins make: a union's own attributes, and those a generic alias keeps
# for itself (any other it looks up on its origin class: those every alias has, whatever
# its origin, not `list[int].append`).
form = int | None
out["types." + type(form).__name__] = sorted(n for n in dir(form) if hasattr(form, n))
aliases = (list[int], type[int], dict[int, int], tuple[int])
out["types.GenericAlias"] = sorted(set.intersection(*(set(n for n in dir(a) if hasattr(a, n)) for a in aliases)))
# The types of values the core knows only by their type, by their objects' own attributes
# (`d.keys().update` raises `'dict_keys' object has no attribute 'update'`).
for value in ({}.keys(), {}.values(), {}.items(), zip(), enumerate(()), map(int, ()), filter(None, ()),
              range(0), lambda: 0, len, ..., "", [], (), set(), {}, 0, 0.0, True, b"", None, slice(0)):
    out["object:" + type(value).__name__] = sorted(n for n in dir(value) if hasattr(value, n))
print(json.dumps({"version": "%d.%d.%d" % sys.version_info[:3], "classes": out}))
"""


def main() -> int:
    pythons = sys.argv[1:]
    if not pythons:
        print(__doc__, file=sys.stderr)
        return 2
    union: dict = {}
    versions = []
    for python in pythons:
        answer = json.loads(subprocess.run([python, "-I", "-S", "-c", PROBE], capture_output=True, text=True, check=True).stdout)
        versions.append(answer["version"])
        for name, attributes in answer["classes"].items():
            union.setdefault(name, set()).update(attributes)
    with open(OUT, "w") as f:
        f.write("# dir(cls) and dir(type) names hasattr finds on each builtin class, union over CPython %s (tools/cpython/builtin_class_attributes.py)\n" % ", ".join(versions))
        for name in sorted(union):
            f.write(" ".join([name] + sorted(union[name])) + "\n")
    print("wrote %s: %d classes" % (OUT, len(union)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
