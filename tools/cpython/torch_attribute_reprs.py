#!/usr/bin/env python3
"""Write server/core/data/torch_attribute_reprs.txt: the repr of each function torch holds at
the top level (`torch.complex`: `<built-in method complex of type object at 0x…>`,
`torch.load`: `<function load at 0x…>`), each address written `0x…` (the run decides it), so
that `{torch.complex: True}` as supported_dtypes gets check-manifest's own
`Invalid supported_dtypes key <built-in method complex of type object at 0x…>` without running
Python.

    python3 tools/cpython/torch_attribute_reprs.py TORCH_PYTHON
    # the real tool's venv (torch 2.12.1, as the schema)

Each line is `name` (a `builtin_function_or_method` whose repr is `<built-in method NAME of
type object at 0x…>`, most of them), `name def` (a `function` whose repr is `<function NAME
at 0x…>`), or `name type repr` (any other repr of those two types; other types are left
out). Only names of `vars(torch)` that are no module, and whose repr is the same in two
fresh processes once addresses are elided.
"""
import json
import os
import subprocess
import sys

OUT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "core", "data", "torch_attribute_reprs.txt"
)

PROBE = r"""
import json, re, types, torch
out = {}
for name, value in sorted(vars(torch).items()):
    if isinstance(value, types.ModuleType) or name.startswith("__"):
        continue
    kind = type(value).__name__
    if kind not in ("builtin_function_or_method", "function"):
        continue
    text = re.sub(r"0x[0-9a-f]+", "0x\u2026", repr(value))
    if "\n" in text or " " not in text:
        continue
    out[name] = [kind, text]
print(json.dumps({"torch": torch.__version__, "reprs": out}))
"""


def probe(python):
    done = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    python = sys.argv[1]
    first, second = probe(python), probe(python)
    stable = {n: v for n, v in first["reprs"].items() if second["reprs"].get(n) == v}
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(f"# torch {first['torch']} top-level functions: name type repr (tools/cpython/torch_attribute_reprs.py)\n")
        for name, (kind, text) in sorted(stable.items()):
            if (kind, text) == ("builtin_function_or_method", f"<built-in method {name} of type object at 0x\u2026>"):
                f.write(f"{name}\n")
            elif (kind, text) == ("function", f"<function {name} at 0x\u2026>"):
                f.write(f"{name} def\n")
            else:
                f.write(f"{name} {kind} {text}\n")
    print(f"{len(stable)} reprs written to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
