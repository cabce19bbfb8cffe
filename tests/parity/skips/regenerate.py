#!/usr/bin/env python3
"""Regenerate the show-skips parity corpus from a real torchcts install.

    python3 tests/parity/skips/regenerate.py --torchcts-python /work/tv/venv/bin/python [--case NAME ...]

For every case of cases.json it lays the case manifest (a file of cases/NAME/ or a
template shipped in the torchcts package) as manifest.py in a scratch folder, runs
`torchcts show-skips` there (sequentially, under `nice -n 19`), and writes into
cases/NAME/:

* output.txt.gz   - stdout of show-skips as printed (gzip, mtime 0)
* expected.json.gz - the parsed result (gzip, mtime 0): collected, deselected and included counts,
                    per-reason counts in first-seen order, and every record
                    [node id as printed, reason, detail] in printed order
* manifest.json   - the manifest dict as evaluated by the real Python, in a tagged
                    JSON form (see docs/inventory.md) so tests need no Python
* stderr.txt, recorded_on.txt - when show-skips warned about expired known-segfault
                    ledger entries: its stderr and the day (UTC) it ran

A case folder's `known_segfaults.json` (the project's own ledger) is laid beside the
manifest too, and `expected.json.gz` then records what `get_hardware_key` reads of the
machine (`host`: `platform.node()` and the memory in GB), for hardware-specific entries.

One run costs 90-500 s of CPU.  Cases run one at a time.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")

# Evaluated by the torchcts Python: prints the manifest dict in tagged JSON.
_DUMP_MANIFEST = r"""
import importlib.util, json, sys
import torch
spec = importlib.util.spec_from_file_location("manifest", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
def enc(v):
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": v}
    if isinstance(v, float):
        return {"float": v}
    if isinstance(v, str):
        return {"str": v}
    if v is None:
        return {"none": True}
    if isinstance(v, torch.dtype):
        return {"dtype": str(v)}
    if isinstance(v, (list, tuple)):
        return {"list" if isinstance(v, list) else "tuple": [enc(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[enc(k), enc(x)] for k, x in v.items()]}
    return {"other": repr(v)}
print(json.dumps(enc(getattr(mod, "manifest", {})), indent=1))
"""


def parse_show_skips(text: str) -> dict:
    lines = [ln.split("\r")[-1] for ln in text.split("\n")]
    out = {
        "header_records": None,
        "reason_counts": [],
        "records": [],
        "collected": None,
        "deselected": None,
        "included": None,
    }
    i = 0
    while i < len(lines) and not lines[i].startswith("  NOT-RUN AUDIT ("):
        i += 1
    if i == len(lines):
        raise ValueError("no NOT-RUN AUDIT block")
    m = re.match(r"  NOT-RUN AUDIT \((\d+) records\)", lines[i])
    out["header_records"] = int(m.group(1))
    i += 2  # header and rule
    while i < len(lines) and lines[i].startswith("    "):
        m = re.match(r"    (\S+?)\s*: (\d+)$", lines[i])
        if not m:
            raise ValueError(f"bad reason line: {lines[i]!r}")
        out["reason_counts"].append([m.group(1), int(m.group(2))])
        i += 1
    known = {r for r, _ in out["reason_counts"]}
    while i < len(lines) and lines[i] != "  Full not-run list:":
        i += 1
    i += 2
    rec_re = re.compile(r"  (\S+) +(\S+) (.*)$", re.S)
    while i < len(lines):
        ln = lines[i]
        if ln.startswith("collected ") or ln.startswith("====") or ln.startswith("<"):
            break
        m = rec_re.match(ln)
        start = False
        if m and m.group(2) in known:
            nid, reason = m.group(1), m.group(2)
            col = 2 + max(len(nid), 60) + 1
            if ln[col:col + len(reason)] == reason:
                start = True
                detail = ln[col + max(len(reason), 25) + 1:]
                out["records"].append([nid, reason, detail])
        if not start:
            if not out["records"]:
                raise ValueError(f"unexpected line before first record: {ln!r}")
            out["records"][-1][2] += "\n" + ln
        i += 1
    for ln in lines[i:]:
        m = re.search(r"=+ (?:(\d+)/)?(\d+) tests? collected(?: \((\d+) deselected\))?", ln)
        if m:
            total = int(m.group(2))
            out["collected"] = total
            out["deselected"] = int(m.group(3) or 0)
            out["included"] = int(m.group(1)) if m.group(1) else total
            break
    if out["collected"] is None:
        for ln in lines[i:]:
            m = re.match(r"collected (\d+) items?(?: / (\d+) deselected)?(?: / (\d+) selected)?", ln)
            if m:
                out["collected"] = int(m.group(1))
                out["deselected"] = int(m.group(2) or 0)
                out["included"] = int(m.group(3)) if m.group(3) else out["collected"] - out["deselected"]
                break
    return out


def torchcts_package_dir(python: str) -> str:
    return subprocess.check_output(
        [python, "-c", "import os, torchcts; print(os.path.dirname(torchcts.__file__))"], text=True
    ).strip()


def pytest_node_prefix(work: str, pkg: str):
    """pytest roots node ids at the common folder of the working directory and the package,
    or at the package when that is `/` (torchcts' known-segfault ledger then never matches)."""
    common = os.path.commonpath([os.path.realpath(work), os.path.realpath(pkg)])
    if common == os.path.dirname(common):
        return None
    return os.path.relpath(os.path.realpath(pkg), common).replace(os.sep, "/") + "/"


def host_facts(python: str) -> dict:
    """What `report.get_hardware_key` reads of the machine off cuda and mps."""
    code = (
        "import json, platform, psutil\n"
        "print(json.dumps({'node': platform.node(), 'memory_gb': int(psutil.virtual_memory().total / 1024**3)}))"
    )
    return json.loads(subprocess.check_output([python, "-c", code], text=True))


def versions(python: str) -> dict:
    code = (
        "import json, platform, torch\n"
        "from importlib.metadata import version\n"
        "print(json.dumps({'torchcts': version('torchcts'), 'torch': torch.__version__,"
        " 'python': platform.python_version()}))"
    )
    return json.loads(subprocess.check_output([python, "-c", code], text=True))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--torchcts-python", required=True, help="Python of an environment with torchcts installed")
    ap.add_argument("--python-for", action="append", default=[], metavar="[TORCHCTS/]TORCH=PYTHON",
                    help="Python of an environment with that torch release (and that torchcts release: "
                         "`0.4.0/2.12.1=PY`), for cases with a `torch` (and `torchcts`) field")
    ap.add_argument("--case", action="append", help="only these cases")
    ap.add_argument("--parse-only", action="store_true", help="re-parse committed output.txt.gz, run nothing")
    args = ap.parse_args()

    with open(os.path.join(HERE, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    if args.case:
        cases = [c for c in cases if c["name"] in args.case]
    pythons = dict(item.split("=", 1) for item in args.python_for)

    for n, case in enumerate(cases, 1):
        name = case["name"]
        # A case with a `torch` field was produced with that torch release (the parity
        # tests pass `--torch` to select its inventory); one with a `torchcts` field too with
        # that torchcts release (`--python-for 0.4.0/2.12.1=PY`).
        key = case.get("torch")
        if case.get("torchcts"):
            key = f"{case['torchcts']}/{case.get('torch') or '2.12.1'}"
        python = pythons.get(key) if key else args.torchcts_python
        if python is None:
            print(f"[{n}/{len(cases)}] {name}: needs --python-for {key}=PY, skipped", file=sys.stderr)
            continue
        pkg = torchcts_package_dir(python)
        vers = versions(python)
        if case.get("torchcts") and vers["torchcts"] != case["torchcts"] and not args.parse_only:
            raise SystemExit(f"{name}: {python} has torchcts {vers['torchcts']}, the case needs {case['torchcts']}")
        exe = os.path.join(os.path.dirname(python), "torchcts")
        base_cmd = [exe] if os.path.exists(exe) else [python, "-m", "torchcts"]
        cdir = os.path.join(CASES_DIR, name)
        os.makedirs(cdir, exist_ok=True)
        if case.get("template"):
            src = os.path.join(pkg, "templates", f"manifest.{case['template']}.py")
        else:
            src = os.path.join(cdir, "manifest.py")
        out_gz = os.path.join(cdir, "output.txt.gz")
        t0 = time.time()
        node_prefix = None
        host = None
        if args.parse_only:
            with gzip.open(out_gz, "rt", encoding="utf-8") as f:
                stdout = f.read()
            wall = None
        else:
            work = tempfile.mkdtemp(prefix=f"skips-{name}-")
            node_prefix = pytest_node_prefix(work, pkg)
            shutil.copy(src, os.path.join(work, "manifest.py"))
            # The project's own known-segfault ledger, read from the run's folder.
            ledger = os.path.join(cdir, "known_segfaults.json")
            if os.path.exists(ledger):
                shutil.copy(ledger, os.path.join(work, "known_segfaults.json"))
                host = host_facts(python)
            cmd = ["nice", "-n", "19", *base_cmd, "show-skips", *case["args"]]
            print(f"[{n}/{len(cases)}] {name}: {' '.join(cmd[3:])} ...", file=sys.stderr, flush=True)
            proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
            wall = round(time.time() - t0, 1)
            stdout = proc.stdout
            if proc.returncode != 0:
                print(proc.stderr[-3000:], file=sys.stderr)
                print(f"  show-skips exited {proc.returncode}", file=sys.stderr)
            with open(out_gz, "wb") as f:
                f.write(gzip.compress(stdout.encode("utf-8"), compresslevel=9, mtime=0))
            # The ledgers' expiry warnings depend on the day: kept with it.
            if "Warning: known segfault" in proc.stderr:
                with open(os.path.join(cdir, "stderr.txt"), "w", encoding="utf-8") as f:
                    f.write(proc.stderr)
                with open(os.path.join(cdir, "recorded_on.txt"), "w", encoding="utf-8") as f:
                    f.write(time.strftime("%Y-%m-%d", time.gmtime()) + "\n")
            manifest_json = subprocess.check_output([python, "-c", _DUMP_MANIFEST, src], text=True, cwd=work)
            with open(os.path.join(cdir, "manifest.json"), "w", encoding="utf-8") as f:
                f.write(manifest_json)
            shutil.rmtree(work, ignore_errors=True)
        parsed = parse_show_skips(stdout)
        if parsed["header_records"] != len(parsed["records"]):
            print(f"  warning: header says {parsed['header_records']} records, parsed {len(parsed['records'])}",
                  file=sys.stderr)
        expected_path = os.path.join(cdir, "expected.json.gz")
        old = {}
        if os.path.exists(expected_path):
            with gzip.open(expected_path, "rt", encoding="utf-8") as f:
                old = json.load(f)
        elif os.path.exists(os.path.join(cdir, "expected.json")):
            with open(os.path.join(cdir, "expected.json"), encoding="utf-8") as f:
                old = json.load(f)
        result = {
            "case": name,
            "description": case.get("description", ""),
            "template": case.get("template"),
            "args": case["args"],
            "torch": case.get("torch"),
            "torchcts": case.get("torchcts"),
            # The path pytest prefixed node ids with (null: rooted at the package).
            "node_prefix": node_prefix if not args.parse_only else old.get("node_prefix"),
            "tool": vers,
            # The machine the run saw (hardware keys of project ledger entries).
            "host": host if not args.parse_only else old.get("host"),
            "wall_seconds": wall if wall is not None else old.get("wall_seconds"),
            "collected": parsed["collected"],
            "deselected": parsed["deselected"],
            "included": parsed["included"],
            "header_records": parsed["header_records"],
            "reason_counts": parsed["reason_counts"],
            "records": parsed["records"],
        }
        text = json.dumps(result, indent=0, ensure_ascii=False) + "\n"
        with open(expected_path, "wb") as f:
            f.write(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
        stale = os.path.join(cdir, "expected.json")
        if os.path.exists(stale):
            os.remove(stale)
        print(
            f"  {name}: {result['included']}/{result['collected']} collected ({result['deselected']} deselected), "
            f"{len(result['records'])} records, " + (f"{wall}s" if wall is not None else "re-parsed"),
            file=sys.stderr,
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
