#!/usr/bin/env python3
"""Write server/core/data/module_attributes.txt: the attributes of each standard-library
module, so that the core can say `AttributeError: module 'sys' has no attribute 'ex'` for
`sys.ex` without running Python.

    python3 tools/cpython/module_attributes.py PYTHON... [--torch PYTHON]
    # e.g. the pyenv 3.10 .. 3.13, and the real tool's venv (torch 2.12.1, as the schema)

A line `module !3.13 name name ...` holds the union of `vars(module)` over the given
CPythons: a name missing from it is missing in every one of them. `!3.13` says that the
module has a `__getattr__` (PEP 562) in CPython 3.13, which may answer names it does not
hold: under that Python nothing is claimed. Only modules that every given CPython imports
are listed, and only plain modules: a package gains an attribute for each submodule
something imports. Private modules (`_abc`) and the few with side effects on import are left out. The
attributes are those of the platform the script runs on (Linux here): a name only another
platform has (`os.chflags` on macOS) would be missing from the file.

`--torch PYTHON` adds a line for the torch that PYTHON imports (the schema's version): its
`vars()` and the names its `__getattr__` answers (submodules imported lazily:
`torch.onnx`), probed in one process, so a submodule another one imports may be counted in
too (never a name too few); and writes `torch_submodules.txt`, those of them that are modules
(`exporter ,= torch.onnx` raises as a module does).
"""
import argparse
import json
import os
import subprocess
import sys

from stdlib_probe import STDLIB_MODULES

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "core", "data")
OUT = os.path.join(DATA, "module_attributes.txt")
SUBMODULES_OUT = os.path.join(DATA, "torch_submodules.txt")

# Run in each CPython, without the user's site-packages or environment (-E -s; `site` still runs, as it does
# for the tool: it sets `sys.__interactivehook__`).
PROBE = STDLIB_MODULES + r"""
import json
found, open_ended = {}, []
for name, module in stdlib_modules():
    if hasattr(module, "__path__"):
        open_ended.append(name)
        continue
    found[name] = ["__getattr__" in vars(module), sorted(vars(module))]
print(json.dumps([sys.version.split()[0], found, open_ended]))
"""


TORCH_PROBE = r"""
import json, pkgutil, types, warnings
warnings.simplefilter("ignore")
import torch
names = set(vars(torch))
for sub in pkgutil.iter_modules(torch.__path__):
    try:
        if hasattr(torch, sub.name):
            names.add(sub.name)
    except Exception:
        pass
modules = [n + "=" + getattr(torch, n).__name__ for n in sorted(names) if type(getattr(torch, n, None)) is types.ModuleType]
print(json.dumps([torch.__version__, sorted(names), modules]))
"""


def main():
    parser = argparse.ArgumentParser(description="Write server/core/data/module_attributes.txt.")
    parser.add_argument("pythons", nargs="+", help="CPythons whose standard library is read")
    parser.add_argument("--torch", dest="torch_python", help="a Python with the schema's torch")
    options = parser.parse_args()
    torch_python = options.torch_python
    versions, per_version, open_ended = [], [], set()
    for python in options.pythons:
        version, found, skipped = json.loads(subprocess.check_output([python, "-E", "-s", "-c", PROBE], text=True))
        versions.append(version)
        per_version.append(found)
        open_ended.update(skipped)
    everywhere = set.intersection(*(set(found) for found in per_version)) - open_ended
    torch_line, torch_note = "", ""
    if torch_python:
        output = subprocess.check_output([torch_python, "-E", "-s", "-c", TORCH_PROBE], text=True)
        torch_version, names, modules = json.loads(output.splitlines()[-1])
        torch_line, torch_note = " ".join(["torch", *names]) + "\n", f"; torch {torch_version} last"
        with open(SUBMODULES_OUT, "w", encoding="utf-8") as f:
            f.write(f"# the attributes of torch {torch_version} that are modules, as attribute=__name__ (tools/cpython/module_attributes.py --torch)\n")
            f.write(" ".join(modules) + "\n")
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(f"# vars() of standard-library modules, union over CPython {', '.join(versions)} on {sys.platform}{torch_note} (tools/cpython/module_attributes.py)\n")
        for module in sorted(everywhere):
            names = sorted(set().union(*(found[module][1] for found in per_version)))
            open_in = ["!" + ".".join(v.split(".")[:2]) for v, found in zip(versions, per_version) if found[module][0]]
            f.write(" ".join([module, *open_in, *names]) + "\n")
        if torch_line:
            f.write(torch_line)
    print(f"{len(everywhere)} modules from {versions}", file=sys.stderr)


if __name__ == "__main__":
    main()
