#!/usr/bin/env python3
"""Write tests/parity/syntax_probes/verdicts.json: CPython's compile() verdict on each construct
of tests/parity/syntax_probes/constructs.txt, per CPython version given.

    python3 tools/cpython/syntax_probe_verdicts.py PYTHON...
    # e.g. the pyenv 3.10 .. 3.13

constructs.txt holds one construct a line, `\\n` standing for a line break and `\\\\` for a
backslash (any other backslash is itself). Each is compiled as `<construct>\\nmanifest = {}\\n`
(never run: `compile()` in a `-I -S` process). A verdict is `ok`, or CPython's message and
line (`invalid syntax (line 1)`). server/core/tests/syntax_probes.rs reads both files.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "parity", "syntax_probes")

PROBE = r"""
import json, sys
out = []
for text in json.load(sys.stdin):
    try:
        compile(text, "manifest.py", "exec")
        out.append("ok")
    except SyntaxError as e:  # IndentationError and TabError are SyntaxErrors
        out.append("%s (line %s)" % (e.msg, e.lineno))
    except ValueError as e:  # a NUL byte
        out.append("%s (line 0)" % e)
print(json.dumps({"version": "%d.%d" % sys.version_info[:2], "verdicts": out}))
"""


def decode(line: str) -> str:
    return re.sub(r"\\(\\|n)", lambda m: "\n" if m.group(1) == "n" else "\\", line)


def main() -> int:
    pythons = sys.argv[1:]
    if not pythons:
        print(__doc__, file=sys.stderr)
        return 2
    with open(os.path.join(HERE, "constructs.txt"), encoding="utf-8") as f:
        constructs = [line for line in f.read().split("\n") if line.strip()]
    texts = [decode(c) + "\nmanifest = {}\n" for c in constructs]
    by_version = {}
    for python in pythons:
        answer = subprocess.run([python, "-I", "-S", "-c", PROBE], input=json.dumps(texts), capture_output=True, text=True, check=True)
        result = json.loads(answer.stdout)
        by_version[result["version"]] = result["verdicts"]
    versions = sorted(by_version)
    cases = [{"construct": c, "verdicts": {v: by_version[v][i] for v in versions}} for i, c in enumerate(constructs)]
    # One case a line: a third of the indented size, and a diff names the constructs changed.
    with open(os.path.join(HERE, "verdicts.json"), "w", encoding="utf-8") as f:
        f.write('{"versions": %s, "cases": [\n' % json.dumps(versions))
        f.write(",\n".join(json.dumps(c, ensure_ascii=False) for c in cases))
        f.write("\n]}\n")
    print("wrote %d verdicts for CPython %s" % (len(cases), ", ".join(versions)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
