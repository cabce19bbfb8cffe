#!/usr/bin/env python3
"""Write server/core/data/module_attribute_types.txt: the type of each attribute of a
standard-library module (and of torch) whose type defines no arithmetic operator, or only
`|`, so that the core can say `bad operand type for unary -: 'function'` for `-json.dumps`,
or `unsupported operand type(s) for +: '_AnyMeta' and 'int'` for `Any + 1`, without running
Python.

    python3 tools/cpython/module_attribute_types.py PYTHON... [--torch PYTHON]
    # e.g. the pyenv 3.10 .. 3.13, and the real tool's venv (torch 2.12.1, as the schema)

A line `module attr TYPE` holds the type's name as CPython's messages print it (`tp_name`,
taken from the `TypeError` of `-value` itself: `re.Pattern`, `_io.TextIOWrapper`), the same
in every given CPython; `module attr T1 T2 ...` one per given CPython, in the header's order,
where they differ, `-` where that CPython claims nothing (the attribute is missing, or its type
has operators). A trailing `|` says the type defines `|` (`type`, `_SpecialForm`: `Any | None`
makes a union): only the other operators raise. A last `!` says the object cannot be called
(`'zip' object is not callable`); without it, calling it may succeed. A `~` after those says
`iter()` of it raises (`Value after * must be an iterable, not _AnyMeta`). Modules are left out (the core knows them as
modules), and so are private modules (`_abc`) and those with side effects on import; a
package's attributes are listed (its submodules are modules, left out).
"""
import argparse
import json
import os
import subprocess
import sys

from stdlib_probe import STDLIB_MODULES

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "core", "data", "module_attribute_types.txt"
)

# The attributes of one module's `vars()` whose type has no arithmetic operator but `|`.
COMMON = r"""
import types
OPS = ["__neg__", "__pos__", "__invert__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
       "__matmul__", "__rmatmul__", "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
       "__rmod__", "__pow__", "__rpow__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__", "__and__",
       "__rand__", "__xor__", "__rxor__", "__or__", "__ror__"]
PREFIX = "bad operand type for unary -: '"
# What the process running the manifest may replace (pytest captures the streams, site sets
# `sys.__interactivehook__`; a closed stream is None): not the same object in every run.
RUN_TIME = {"stdin", "stdout", "stderr", "__stdin__", "__stdout__", "__stderr__"}
def operator_less(module_name, module, found):
    for attr, value in sorted(vars(module).items()):
        if isinstance(value, types.ModuleType):
            continue
        if module_name == "sys" and (attr in RUN_TIME or "hook" in attr):
            continue
        # A None the environment may make something else (`sys.pycache_prefix`).
        if value is None:
            continue
        # A subclass of a type the manifest schema checks for (an OrderedDict is a dict):
        # the core takes a value known only by another type for none of those.
        builtin = (dict, list, tuple, str, bytes, int, float, set, frozenset)
        if isinstance(value, builtin) and type(value) is not dict:
            continue
        # On the type's own classes, not its metaclass's (a class is an instance of `type`).
        defined = {op for op in OPS if any(op in vars(k) for k in type(value).__mro__)}
        if not defined <= {"__or__", "__ror__"}:
            continue
        try:
            -value
            continue
        except TypeError as error:
            message = str(error)
        except Exception:
            continue
        if message.startswith(PREFIX) and message.endswith("'"):
            try:
                iter(value)
                iterable = True
            except TypeError:
                iterable = False
            suffix = ("|" if defined else "") + ("" if callable(value) else "!") + ("" if iterable else "~")
            found[module_name + " " + attr] = message[len(PREFIX):-1] + suffix
"""

PROBE = COMMON + STDLIB_MODULES + r"""
import json
found = {}
for name, module in stdlib_modules():
    operator_less(name, module, found)
print(json.dumps([sys.version.split()[0], found]))
"""

TORCH_PROBE = COMMON + r"""
import json, warnings
warnings.simplefilter("ignore")
import torch
found = {}
operator_less("torch", torch, found)
print(json.dumps([torch.__version__, found]))
"""


def main():
    parser = argparse.ArgumentParser(description="Write server/core/data/module_attribute_types.txt.")
    parser.add_argument("pythons", nargs="+", help="CPythons whose standard library is read")
    parser.add_argument("--torch", dest="torch_python", help="a Python with the schema's torch")
    options = parser.parse_args()
    versions, per_version = [], []
    for python in options.pythons:
        version, found = json.loads(subprocess.check_output([python, "-E", "-s", "-c", PROBE], text=True))
        versions.append(".".join(version.split(".")[:2]))
        per_version.append(found)
    lines = []
    for key in sorted(set().union(*per_version)):
        types = [found.get(key, "-") for found in per_version]
        lines.append(" ".join([key, *(types[:1] if len(set(types)) == 1 else types)]))
    note = ""
    if options.torch_python:
        output = subprocess.check_output([options.torch_python, "-E", "-s", "-c", TORCH_PROBE], text=True)
        torch_version, found = json.loads(output.splitlines()[-1])
        lines += [f"{key} {found[key]}" for key in sorted(found)]
        note = f"; torch {torch_version} (its Python's)"
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(f"# module attribute types without operators but `|`: CPython {' '.join(versions)} on {sys.platform}{note} (tools/cpython/module_attribute_types.py)\n")
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} attributes from {versions}", file=sys.stderr)


if __name__ == "__main__":
    main()
