#!/usr/bin/env python3
"""Write server/core/data/stdlib_modules.txt: every top-level module name of the standard
library (`sys.stdlib_module_names`) or built in (`sys.builtin_module_names`) of any of the
given CPythons (3.10 and later), one a line, sorted. The core never says "No module named"
for one of them, whatever Python the user has.

    python3 tools/gen_stdlib_modules.py PYTHON...   # e.g. the pyenv 3.10, 3.11, 3.12, 3.13
"""
import json
import os
import subprocess
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server", "core", "data", "stdlib_modules.txt")
CODE = "import json, sys; print(json.dumps([sys.version.split()[0], sorted(set(sys.stdlib_module_names) | set(sys.builtin_module_names))]))"


def main():
    names, versions = set(), []
    for python in sys.argv[1:]:
        version, found = json.loads(subprocess.check_output([python, "-c", CODE], text=True))
        versions.append(version)
        names.update(found)
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(f"# sys.stdlib_module_names | sys.builtin_module_names of CPython {', '.join(versions)} (tools/gen_stdlib_modules.py)\n")
        f.write("\n".join(sorted(names)) + "\n")
    print(f"{len(names)} names from {versions}", file=sys.stderr)


if __name__ == "__main__":
    main()
