#!/usr/bin/env python3
"""Replace some items of a full inventory by those of a targeted re-extraction.

    python3 tools/inventory/merge_items.py FULL.json.gz PATCH.json.gz --out MERGED.json.gz

For repairing an extraction where some items failed (`error` facts: the packer refuses
them) without extracting the whole suite again. PATCH must be written by
`extract_inventory.py --strings-from FULL.json.gz --path ... --only ...` with the same
torchcts and torch, so that its strings table extends FULL's. Every item of PATCH replaces
the item of FULL with the same node id (in place: collection order is FULL's); the
generated entries it refers to join FULL's table, which is then numbered by first use in
collection order as a full extraction numbers it (an item's facts do not depend on the
other items collected, so these are the facts a full extraction would give).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("full")
    ap.add_argument("patch")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    with gzip.open(args.full, "rt", encoding="utf-8") as f:
        full = json.load(f)
    with gzip.open(args.patch, "rt", encoding="utf-8") as f:
        patch = json.load(f)
    for key in ("torchcts_version", "torch_version", "python_version"):
        if full[key] != patch[key]:
            raise SystemExit(f"{key}: {full[key]} in the full inventory, {patch[key]} in the patch")
    if patch["strings"][: len(full["strings"])] != full["strings"]:
        raise SystemExit("the patch's strings do not extend the full inventory's (extract it --strings-from FULL)")
    full["strings"] = patch["strings"]
    where = {item["id"]: n for n, item in enumerate(full["items"])}
    generated_index: dict[str, int] = {json.dumps(g, sort_keys=True): n for n, g in enumerate(full["generated"])}
    replaced = 0
    for item in patch["items"]:
        if "error" in item:
            raise SystemExit(f"{item['id']}: the patch has an extraction error too: {item['error']}")
        if item["id"] not in where:
            raise SystemExit(f"{item['id']}: not an item of the full inventory")
        if "gen" in item:
            entry = patch["generated"][item["gen"]]
            key = json.dumps(entry, sort_keys=True)
            if key not in generated_index:
                generated_index[key] = len(full["generated"])
                full["generated"].append(entry)
            item = dict(item, gen=generated_index[key])
        full["items"][where[item["id"]]] = item
        replaced += 1
    # Renumber the generated entries by first use in collection order, as a full extraction
    # numbers them (it appends an entry when an item first refers to it): the merged file
    # then has the table a full extraction writes, and its line delta stays small.
    order: dict[int, int] = {}
    for item in full["items"]:
        if "gen" in item and item["gen"] not in order:
            order[item["gen"]] = len(order)
    full["generated"] = [full["generated"][old] for old in sorted(order, key=order.get)]
    full["items"] = [dict(item, gen=order[item["gen"]]) if "gen" in item else item for item in full["items"]]
    left = [item["id"] for item in full["items"] if "error" in item]
    full["extraction_seconds"] = round(full.get("extraction_seconds", 0) + patch.get("extraction_seconds", 0), 1)
    with open(args.out, "wb") as f:
        f.write(gzip.compress(json.dumps(full, ensure_ascii=False).encode("utf-8"), compresslevel=9, mtime=0))
    print(f"{replaced} items replaced, {len(full['generated'])} generated entries, {len(left)} items with errors left",
          file=sys.stderr)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
