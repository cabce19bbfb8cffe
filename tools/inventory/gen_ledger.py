#!/usr/bin/env python3
"""Write what torchcts-lsp needs of torchcts' packaged known-segfault ledger
(`torchcts/known_segfaults.json`): per entry its id, backend, hardware, torch range and
review date, in the ledger's order, for the expiry warnings show-skips and run print.

    PY tools/inventory/gen_ledger.py [--out server/accounting/data/known_segfaults.json]

PY is the Python of an environment with torchcts; the file keeps one table per torchcts
release, so run it once per release (it merges into the existing file). Standard library
and the installed torchcts only.
"""
import argparse
import json
import os
from importlib.metadata import version

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "..", "server", "accounting", "data", "known_segfaults.json")
FIELDS = ("id", "backend", "hardware", "pytorch_min", "pytorch_max", "review_after")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    from torchcts.core.known_segfaults import PACKAGED_KNOWN_SEGFAULTS, validate_known_segfaults, _read_payload

    entries = validate_known_segfaults([_read_payload(PACKAGED_KNOWN_SEGFAULTS)])
    table = [{k: e.get(k) for k in FIELDS} for e in entries]
    out = {}
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            out = json.load(f)
    out[version("torchcts")] = table
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("{\n")
        f.write(",\n".join(
            f'  {json.dumps(v)}: [\n' + ",\n".join("    " + json.dumps(e) for e in out[v]) + "\n  ]"
            for v in sorted(out)))
        f.write("\n}\n")
    print(f"{args.out}: torchcts {version('torchcts')}: {len(table)} entries")


if __name__ == "__main__":
    main()
