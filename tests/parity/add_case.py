#!/usr/bin/env python3
"""Add one case to a parity corpus in one step: copy the manifest in, register it, and record
the real tool's output for that case alone.

    python3 tests/parity/add_case.py check NAME path/to/manifest.py [--torchcts-python PY]
    python3 tests/parity/add_case.py skips NAME path/to/manifest.py --torchcts-python PY \\
        --args "--device mps --level 4" [--torch 2.9.1] [--description TEXT]
    python3 tests/parity/add_case.py diff  NAME path/to/manifest.py --torchcts-python PY \\
        --args "--device cpu --level 4" [--description TEXT]

Every corpus keeps a case as `cases/NAME/manifest.py` beside what the real tool printed for
it (check: `expected.json`; skips and diff: `output.txt.gz`, `expected.json.gz`,
`manifest.json`, and an entry in `cases.json` with the show-skips flags). The syntax corpus is
generated from the check cases (`syntax/regenerate.py`), so a new check case reaches it there.
Then run the corpus's test (`cargo test --test parity_check`, `--test parity_skips`,
`--test diff_parity`). Standard library only.
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", choices=["check", "skips", "diff"])
    ap.add_argument("name", help="the case's folder name (letters, digits, _)")
    ap.add_argument("manifest", help="the manifest to add")
    ap.add_argument("--torchcts-python", help="Python of an environment with torchcts (required for skips/diff)")
    ap.add_argument("--args", default="--device cpu", help="show-skips flags for skips/diff cases")
    ap.add_argument("--torch", help="skips: the torch release whose inventory the case checks")
    ap.add_argument("--description", default="", help="one line for cases.json")
    a = ap.parse_args()
    if not a.name.replace("_", "").isalnum():
        ap.error("NAME: letters, digits and _ only")
    corpus = os.path.join(HERE, a.corpus)
    case_dir = os.path.join(corpus, "cases", a.name)
    if os.path.exists(case_dir):
        ap.error(f"{case_dir} exists already")
    os.makedirs(case_dir)
    shutil.copyfile(a.manifest, os.path.join(case_dir, "manifest.py"))

    if a.corpus == "check":
        cmd = [sys.executable, os.path.join(corpus, "regenerate.py"), a.name]
        if a.torchcts_python:
            cmd[2:2] = ["--torchcts", os.path.join(os.path.dirname(a.torchcts_python), "torchcts")]
    else:
        if not a.torchcts_python:
            ap.error("--torchcts-python is required for skips and diff cases")
        cases_path = os.path.join(corpus, "cases.json")
        with open(cases_path, encoding="utf-8") as f:
            text = f.read()
        if any(c["name"] == a.name for c in json.loads(text)["cases"]):
            ap.error(f"{a.name} is in {cases_path} already")
        entry = {"name": a.name, "args": shlex.split(a.args), "description": a.description or a.name}
        if a.torch:
            entry["torch"] = a.torch
        # Appended as one line before the list's `]`, the other entries left as they are.
        end = text.rindex("]")
        text = text[:end].rstrip() + ",\n    " + json.dumps(entry, ensure_ascii=False) + "\n  " + text[end:]
        json.loads(text)
        with open(cases_path, "w", encoding="utf-8") as f:
            f.write(text)
        cmd = [sys.executable, os.path.join(corpus, "regenerate.py"), "--torchcts-python", a.torchcts_python,
               "--case", a.name]
    print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
