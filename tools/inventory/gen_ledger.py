#!/usr/bin/env python3
"""Write what torchcts-lsp needs of torchcts' packaged known-segfault ledger
(`torchcts/known_segfaults.json`), in the ledger's order: per entry its id, backend,
hardware, torch range and review date (the expiry warnings show-skips and run print), and
how it matches (match, dispatcher, nodeid, coverage_id, normalised constraints,
classification, execution_policy: a project entry may override it, which needs the
packaged entry's specificity and policy).

    PY tools/inventory/gen_ledger.py [--out server/accounting/data/known_segfaults.json]
    PY tools/inventory/gen_ledger.py --ledger-file known_segfaults.json --version 0.4.0

PY is the Python of an environment with torchcts (the second form reads another release's
file, e.g. out of its wheel, with this torchcts' validation); the file keeps one table per
torchcts release, so run it once per release (it merges into the existing file). Standard
library and the installed torchcts only.
"""
import argparse
import json
import os
from importlib.metadata import version

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "..", "server", "accounting", "data", "known_segfaults.json")
FIELDS = ("id", "backend", "hardware", "pytorch_min", "pytorch_max", "review_after", "match", "dispatcher", "nodeid",
          "coverage_id", "constraints", "classification", "execution_policy")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--ledger-file", help="another release's packaged known_segfaults.json (with --version)")
    ap.add_argument("--version", help="the torchcts release of --ledger-file")
    args = ap.parse_args()
    from pathlib import Path
    from torchcts.core.known_segfaults import PACKAGED_KNOWN_SEGFAULTS, validate_known_segfaults, _read_payload

    path = Path(args.ledger_file) if args.ledger_file else PACKAGED_KNOWN_SEGFAULTS
    release = args.version if args.ledger_file else version("torchcts")
    entries = validate_known_segfaults([_read_payload(path)])
    # Absent keys stay absent (execution_policy defaults to record_without_execution).
    table = [{k: e[k] for k in FIELDS if k in e} for e in entries]
    out = {}
    if os.path.exists(args.out):
        with open(args.out, encoding="utf-8") as f:
            out = json.load(f)
    out[release] = table
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("{\n")
        f.write(",\n".join(
            f'  {json.dumps(v)}: [\n' + ",\n".join("    " + json.dumps(e) for e in out[v]) + "\n  ]"
            for v in sorted(out)))
        f.write("\n}\n")
    print(f"{args.out}: torchcts {release}: {len(table)} entries")


if __name__ == "__main__":
    main()
