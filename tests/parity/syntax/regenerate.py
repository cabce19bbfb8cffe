#!/usr/bin/env python3
"""Regenerate the syntax-error parity corpus: broken manifests and what CPython says.

    python3 tests/parity/syntax/regenerate.py      # CPython 3.11, the Python torchcts 0.4.1 runs on
    python3 tests/parity/syntax/regenerate.py --seed 7 --out /tmp/other.json.gz   # a fresh sample;
        SYNTAX_CORPUS=/tmp/other.json.gz cargo test --test parity_syntax   checks it without committing

Takes the committed check-parity manifests (tests/parity/check/cases/*/manifest.py), breaks
each in the ways people break manifests while typing (a comma, colon, bracket or quote
removed, doubled or swapped; a stray word), with a fixed seed, compiles every result with
this CPython and keeps those that fail: cases.json holds [source, message, line] where
message and line are SyntaxError.msg and .lineno. `torchcts check-manifest` prints
"Failed to parse manifest: {msg} ({file}, line {lineno})" from the same exception.

`extra_cases.json` adds named sources (shapes the check differential found on fresh seeds),
compiled the same way, after the sample (mutation `extra:<name>`). `--extra-only` keeps the
committed sample as it is and compiles the extra cases again (the sample moves whenever the
check corpus grows).
"""
import glob
import gzip
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
MUTATIONS_PER_FILE = 12


def mutations(text, rng):
    """(description, mutated text) pairs."""
    spots = lambda chars: [i for i, c in enumerate(text) if c in chars]
    out = []
    for _ in range(MUTATIONS_PER_FILE):
        kind = rng.choice(["drop-comma", "drop-colon", "double-comma", "colon-to-equals", "drop-bracket",
                           "stray-word", "drop-quote", "drop-comma-and-newline", "swap-colon-comma"])
        if kind == "drop-comma" and spots(","):
            i = rng.choice(spots(","))
            out.append((kind, text[:i] + text[i + 1:]))
        elif kind == "drop-comma-and-newline" and spots(","):
            i = rng.choice(spots(","))
            out.append((kind, text[:i] + " " + text[i + 1:]))
        elif kind == "drop-colon" and spots(":"):
            i = rng.choice(spots(":"))
            out.append((kind, text[:i] + text[i + 1:]))
        elif kind == "double-comma" and spots(","):
            i = rng.choice(spots(","))
            out.append((kind, text[:i] + "," + text[i:]))
        elif kind == "colon-to-equals" and spots(":"):
            i = rng.choice(spots(":"))
            out.append((kind, text[:i] + "=" + text[i + 1:]))
        elif kind == "swap-colon-comma" and spots(":"):
            i = rng.choice(spots(":"))
            out.append((kind, text[:i] + "," + text[i + 1:]))
        elif kind == "drop-bracket" and spots(")]}"):
            i = rng.choice(spots(")]}"))
            out.append((kind, text[:i] + text[i + 1:]))
        elif kind == "stray-word" and spots(","):
            i = rng.choice(spots(","))
            out.append((kind, text[:i] + " stray" + text[i:]))
        elif kind == "drop-quote" and spots("\"'"):
            i = rng.choice(spots("\"'"))
            out.append((kind, text[:i] + text[i + 1:]))
    return out


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--out", default=os.path.join(HERE, "cases.json.gz"))
    ap.add_argument("--extra-only", action="store_true", help="keep the committed sample, redo the extra cases")
    args = ap.parse_args()
    if sys.version_info[:2] != (3, 11):
        print("warning: torchcts 0.4.1 runs on CPython 3.11; messages differ between versions", file=sys.stderr)
    rng = random.Random(args.seed)
    cases = []
    if args.extra_only:
        with gzip.open(os.path.join(HERE, "cases.json.gz"), "rt", encoding="utf-8") as f:
            cases = [c for c in json.load(f)["cases"] if not c["mutation"].startswith("extra:")]
    for path in [] if args.extra_only else sorted(glob.glob(os.path.join(ROOT, "tests/parity/check/cases/*/manifest.py"))):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        try:
            compile(text, "manifest.py", "exec")
        except SyntaxError:
            continue  # already broken: covered by the check corpus
        for kind, broken in mutations(text, rng):
            try:
                compile(broken, "manifest.py", "exec")
            except SyntaxError as e:
                name = os.path.basename(os.path.dirname(path))
                cases.append({"from": name, "mutation": kind, "source": broken, "message": e.msg, "line": e.lineno})
    with open(os.path.join(HERE, "extra_cases.json"), encoding="utf-8") as f:
        extra = json.load(f)["cases"]
    for case in extra:
        try:
            compile(case["source"], "manifest.py", "exec")
        except SyntaxError as e:
            cases.append({"from": "extra", "mutation": "extra:" + case["name"], "source": case["source"],
                          "message": e.msg, "line": e.lineno})
        else:
            raise SystemExit(f"extra case {case['name']} compiles: no syntax error to compare")
    data = json.dumps({"python": sys.version.split()[0], "cases": cases}, indent=0, ensure_ascii=False) + "\n"
    with open(args.out, "wb") as f:
        f.write(gzip.compress(data.encode("utf-8"), compresslevel=9, mtime=0))
    print(f"{len(cases)} broken manifests", file=sys.stderr)


if __name__ == "__main__":
    main()
