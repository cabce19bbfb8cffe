"""Writes the large manifest of the keystroke benchmark (docs/performance.md, issues 23 and
30): `template_complete` after 4,000 comment lines of 80 bytes with some non-ASCII, 324 KB,
below the 512 KiB the server still analyses live: where the cost of the text model per
edit shows most.

    python3 tools/bench_large_manifest.py OUT.py
    python3 tools/bench_keystrokes.py target/release/torchcts-lsp OUT.py
"""
import sys

TEMPLATE = "tests/parity/check/cases/template_complete/manifest.py"


def main():
    out = sys.argv[1]
    lines = []
    for i in range(4000):
        line = f"# {i:04d} padding of the keystroke benchmark, non-ASCII: é ü 漢字 "
        lines.append(line + "x" * (79 - len(line.encode())) + "\n")
    text = "".join(lines) + open(TEMPLATE, encoding="utf-8").read()
    with open(out, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    print(f"{out}: {len(text.encode())} bytes")


main()
