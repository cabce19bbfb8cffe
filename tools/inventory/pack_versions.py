#!/usr/bin/env python3
"""Pack the per-release inventories into what the binary embeds.

    python3 tools/inventory/pack_versions.py FULL.json.gz [FULL.json.gz ...] \
        [--out-dir tools/inventory/out] [--keep-packed]

`--keep-packed` also takes every release already packed in the out dir (rebuilt from its
base and deltas), so adding a release needs only that release's new extraction.

Each input is a full inventory written by `extract_inventory.py` (one per torchcts release
and torch release; extract them with `--strings-from` the newest one so shared strings keep
their indices). A release is named `TORCHCTS/TORCH` (`0.4.0/2.12.1`). The newest torch
release of the newest torchcts becomes the *base*, written in full as line-JSON (one array
element per line: strings, items, generated entries, OpInfo rows). Every other release (of
any torchcts) is stored as a line delta against the base: a list whose elements are either
`[start, count]` (copy that many base lines) or a string (a line of its own). A release
whose extraction equals another one of the same torchcts (provenance lines aside) is stored
as an alias of it.

An extraction's `match_metadata` (what the known-segfault matchers read of each item) is
kept out of the line deltas, in a file of its own, so that adding it to a release leaves the
base and the deltas as they are.

Outputs (gzip -9, mtime 0):
* `inventory-base.json.gz`   - the base inventory (valid inventory JSON on its own)
* `inventory-deltas.json.gz` - `{"format": "torchcts-lsp-inventory-deltas", "format_version": 2,
  "base": "TORCHCTS/TORCH", "versions": {"TORCHCTS/TORCH": {"alias": NAME} | {"lines": [...]}}}`
  (format 1, read with `--keep-packed`, named releases by torch alone, all of one torchcts)
* `inventory-metadata.json.gz` - `{"format": "torchcts-lsp-match-metadata", "format_version": 2,
  "base": "TORCHCTS/TORCH", "releases": {"TORCHCTS/TORCH": [per item, aligned with its
  items: the match metadata object, strings as text] | {"rows_against_base": [the same, but
  null where the item's metadata equals the base release's for the same node id]}}}`, for
  the releases extracted with it (the build lends the nearest one's to the others, by node
  id). The base release is written in full; the others almost wholly null: the matchers'
  metadata of a test rarely changes between releases (format 1, read too, wrote every
  release in full)

`--unpack TORCHCTS/TORCH --out FILE` writes one packed release back as a full inventory
(with its match metadata, where it has some), e.g. for `extract_inventory.py --metadata-into`.

`accounting::Inventory::for_release(TORCHCTS, TORCH)` rebuilds a release from these two files.
"""

from __future__ import annotations

import argparse
import difflib
import gzip
import json
import os
import sys

# Lines that differ between any two extractions and say nothing about the suite.
PROVENANCE_KEYS = ("torch_version", "python_version", "extracted_at", "extraction_seconds")
ARRAY_KEYS = ("strings", "items", "generated")


def dumps(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def array_lines(name: str, values: list) -> list[str]:
    """`"name":[` then one element per line, each followed by `,` but the last, then `]`."""
    out = [dumps(name) + ":["]
    out += [dumps(v) + ("," if i + 1 < len(values) else "") for i, v in enumerate(values)]
    out.append("]")
    return out


def inventory_lines(inv: dict) -> list[str]:
    """The inventory as line-JSON: every top-level key on its own line(s)."""
    blocks = []
    for key, value in inv.items():
        if key in ARRAY_KEYS:
            blocks.append(array_lines(key, value))
        elif key == "opinfo":
            inner = []
            subkeys = list(value)
            for j, sub in enumerate(subkeys):
                lines = array_lines(sub, value[sub])
                if j + 1 < len(subkeys):
                    lines[-1] += ","
                inner += lines
            blocks.append(['"opinfo":{', *inner, "}"])
        else:
            blocks.append([dumps(key) + ":" + dumps(value)])
    lines = ["{"]
    for i, block in enumerate(blocks):
        if i + 1 < len(blocks):
            block[-1] += ","
        lines += block
    lines.append("}")
    return lines


def suite_facts(inv: dict) -> dict:
    """What decides the accounting. An item's `req` comes from a Python set, so its order
    changes with the extracting process's hash seed (as the real tool's messages do):
    compared as a set, so that two releases differing only in that order are aliases."""
    facts = {k: v for k, v in inv.items() if k not in PROVENANCE_KEYS}
    facts["items"] = [dict(item, req=sorted(item["req"])) if "req" in item else item for item in facts.get("items", [])]
    return facts


# Match metadata keys whose values are strings (`extract_inventory.match_metadata`).
METADATA_STRING_KEYS = ("su", "ck", "dn", "ci", "sk", "vk", "cs", "st", "sf", "dt")


def metadata_as_text(inv: dict) -> list | None:
    """An extraction's `match_metadata` (taken out of `inv`), strings as text (an older
    extraction gave indices into `strings`)."""
    metadata = inv.pop("match_metadata", None)
    if metadata is None:
        return None
    strings = inv["strings"]
    text = lambda k, v: strings[v] if k in METADATA_STRING_KEYS and isinstance(v, int) else v  # noqa: E731
    return [{k: text(k, v) for k, v in md.items()} for md in metadata]


def with_metadata(inv: dict, metadata: list) -> dict:
    """`inv` with `metadata` as its `match_metadata`, right after its items."""
    out = {}
    for key, value in inv.items():
        out[key] = value
        if key == "items":
            out["match_metadata"] = metadata
    return out


def packed_metadata(out_dir: str, invs: dict) -> dict:
    """Every release's committed match metadata in full (`invs`: the packed releases, whose
    node ids resolve the rows written against the base)."""
    path = os.path.join(out_dir, "inventory-metadata.json.gz")
    if not os.path.exists(path):
        return {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        stored = json.load(f)
    releases = stored["releases"]
    if stored.get("format_version", 1) < 2:
        return releases
    base = stored["base"]
    base_by_id = node_id_map(invs[base], releases[base])
    out = {}
    for release, rows in releases.items():
        if isinstance(rows, dict):
            items = invs[release]["items"]
            rows = [base_by_id[it["id"]] if md is None else md for it, md in zip(items, rows["rows_against_base"])]
        out[release] = rows
    return out


def node_id_map(inv: dict, metadata: list) -> dict:
    return {it["id"]: md for it, md in zip(inv["items"], metadata)}


def metadata_file(base: str, order: list, invs: dict, metadata: dict) -> dict:
    """The committed form: the base release's metadata in full, every other release's rows
    null where they equal the base's for the same node id."""
    if base not in metadata:
        return {"format": "torchcts-lsp-match-metadata", "format_version": 1,
                "releases": {r: metadata[r] for r in order if r in metadata}}
    base_by_id = node_id_map(invs[base], metadata[base])
    releases: dict = {base: metadata[base]}
    for release in order:
        if release in metadata and release != base:
            rows = [None if it["id"] in base_by_id and base_by_id[it["id"]] == md else md
                    for it, md in zip(invs[release]["items"], metadata[release])]
            releases[release] = {"rows_against_base": rows}
    return {"format": "torchcts-lsp-match-metadata", "format_version": 2, "base": base, "releases": releases}


def line_delta(base: list[str], version: list[str]) -> list:
    matcher = difflib.SequenceMatcher(None, base, version, autojunk=False)
    ops: list = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            ops.append([i1, i2 - i1])
        elif tag in ("replace", "insert"):
            ops.extend(version[j1:j2])
    return ops


def apply_delta(base: list[str], ops: list) -> list[str]:
    out: list[str] = []
    for op in ops:
        if isinstance(op, list):
            out.extend(base[op[0] : op[0] + op[1]])
        else:
            out.append(op)
    return out


def version_key(v: str) -> tuple:
    return tuple(int(p) for p in v.split("+")[0].split("."))


def release_name(inv: dict) -> str:
    """`0.4.0/2.12.1`: the torchcts release and the torch release (local suffix dropped)."""
    return f"{inv['torchcts_version'].split('+')[0]}/{inv['torch_version'].split('+')[0]}"


def name_key(name: str) -> tuple:
    torchcts, torch = name.split("/")
    return version_key(torchcts), version_key(torch)


def write_gz(path: str, text: str) -> int:
    data = gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
    # Unchanged bytes keep the file's mtime (the build reruns on a change).
    if not (os.path.exists(path) and open(path, "rb").read() == data):
        with open(path, "wb") as f:
            f.write(data)
    return len(data)


def packed_inventories(out_dir: str) -> dict:
    """Every release already packed in `out_dir`, rebuilt in full from its base and deltas."""
    base_path = os.path.join(out_dir, "inventory-base.json.gz")
    deltas_path = os.path.join(out_dir, "inventory-deltas.json.gz")
    if not os.path.exists(base_path):
        return {}
    with gzip.open(base_path, "rt", encoding="utf-8") as f:
        base_lines = f.read().rstrip("\n").split("\n")
    base = json.loads("\n".join(base_lines))
    out = {release_name(base): base}
    if os.path.exists(deltas_path):
        with gzip.open(deltas_path, "rt", encoding="utf-8") as f:
            deltas = json.load(f)
        # Format 1 named releases by torch alone, all of the file's one torchcts.
        named = (lambda r: r) if deltas.get("format_version", 1) >= 2 else (
            lambda r: f"{deltas['torchcts_version']}/{r}")
        aliases = {}
        for release, stored in deltas["versions"].items():
            if "alias" in stored:
                aliases[named(release)] = named(stored["alias"])
            else:
                out[named(release)] = json.loads("\n".join(apply_delta(base_lines, stored["lines"])))
        for release, twin in aliases.items():
            out[release] = dict(out[twin], torch_version=release.split("/")[1])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("inventories", nargs="*")
    ap.add_argument("--out-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    ap.add_argument("--keep-packed", action="store_true",
                    help="also pack the releases already in the out dir (new extractions replace them)")
    ap.add_argument("--unpack", metavar="TORCHCTS/TORCH", help="write this packed release to --out, then stop")
    ap.add_argument("--out", help="with --unpack: the full inventory to write (.json.gz)")
    args = ap.parse_args()

    if args.unpack:
        invs = packed_inventories(args.out_dir)
        if args.unpack not in invs or not args.out:
            raise SystemExit(f"--unpack needs --out and one of {sorted(invs)}")
        inv = invs[args.unpack]
        metadata = packed_metadata(args.out_dir, invs).get(args.unpack)
        if metadata is not None:
            inv = with_metadata(inv, metadata)
        with open(args.out, "wb") as f:
            f.write(gzip.compress(dumps(inv).encode("utf-8"), compresslevel=9, mtime=0))
        print(f"{args.out}: {args.unpack}, {len(inv['items'])} items"
              + (", with match metadata" if metadata is not None else ""), file=sys.stderr)
        return 0

    invs = packed_inventories(args.out_dir) if args.keep_packed else {}
    metadata = packed_metadata(args.out_dir, invs) if args.keep_packed else {}
    for path in args.inventories:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            inv = json.load(f)
        release = release_name(inv)
        invs[release] = inv
        own = metadata_as_text(inv)
        if own is not None:
            metadata[release] = own
        else:
            # A new extraction without metadata replaces the release, metadata too.
            metadata.pop(release, None)
    for release in list(metadata):
        if release not in invs or len(metadata[release]) != len(invs[release]["items"]):
            print(f"{release}: match metadata dropped (no such release, or other items)", file=sys.stderr)
            del metadata[release]

    # Newest torchcts first, within it newest torch first: the base is the newest of both.
    order = sorted(invs, key=name_key, reverse=True)
    base_version = order[0]
    base_lines = inventory_lines(invs[base_version])
    versions: dict = {}
    for release in order[1:]:
        twin = next((w for w in order if w != release and (w == base_version or w in versions and "lines" in versions[w])
                     and w.split("/")[0] == release.split("/")[0]
                     and suite_facts(invs[w]) == suite_facts(invs[release])), None)
        if twin is not None:
            versions[release] = {"alias": twin}
            print(f"{release}: same suite facts as {twin}", file=sys.stderr)
            continue
        lines = inventory_lines(invs[release])
        ops = line_delta(base_lines, lines)
        assert apply_delta(base_lines, ops) == lines
        literal = sum(1 for op in ops if isinstance(op, str))
        versions[release] = {"lines": ops}
        print(f"{release}: {literal} of {len(lines)} lines differ from {base_version}", file=sys.stderr)

    # An alias is its twin's rows in the archive, metadata too: an alias's own metadata
    # (the same items) serves the twin extracted without any.
    for release, stored in versions.items():
        twin = stored.get("alias")
        if twin and release in metadata and twin not in metadata:
            metadata[twin] = metadata[release]
            print(f"{twin}: match metadata of its alias {release}", file=sys.stderr)

    os.makedirs(args.out_dir, exist_ok=True)
    base_size = write_gz(os.path.join(args.out_dir, "inventory-base.json.gz"), "\n".join(base_lines) + "\n")
    deltas = {
        "format": "torchcts-lsp-inventory-deltas",
        "format_version": 2,
        "base": base_version,
        "versions": versions,
    }
    delta_size = write_gz(os.path.join(args.out_dir, "inventory-deltas.json.gz"), json.dumps(deltas, ensure_ascii=False))
    metadata_path = os.path.join(args.out_dir, "inventory-metadata.json.gz")
    if metadata:
        metadata_size = write_gz(metadata_path, dumps(metadata_file(base_version, order, invs, metadata)))
        print(f"match metadata for {', '.join(r for r in order if r in metadata)}: {metadata_size} bytes",
              file=sys.stderr)
    elif os.path.exists(metadata_path):
        os.remove(metadata_path)
    print(f"base {base_version}: {base_size} bytes; deltas for {len(versions)} versions: {delta_size} bytes",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
