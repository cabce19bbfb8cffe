"""Keystroke latency over stdio while the manifest has a syntax error (issue 34): the
emulation's diagnostics first, then CPython's own verdict (the environment's CPython worker,
`compile()` of the text) published again for the same version where it says otherwise.

    python3 tools/bench_syntax_keystrokes.py BIN PYTHON [manifest.py]

Opens the manifest (template_complete by default) with a statement prepended whose syntax
error the emulation words differently from CPython (`1@,` on line 2: CPython says `invalid
syntax` there, the emulation a missing comma on line 3), then types 100 characters into a
comment at the end, one edit at a time, waiting for each version's CPython answer. Prints,
for `cpythonCompile` on and off: the median and p95 time from `didChange` to that version's
first diagnostics (the emulation's) and, when on, to CPython's. Pure stdlib.
"""
import sys
import time

from lsp_pipe import send, show, start_with, wait_for

exe, python = sys.argv[1], sys.argv[2]
path = sys.argv[3] if len(sys.argv) > 3 else "tests/parity/check/cases/template_complete/manifest.py"
BROKEN = 'x = {\n    "a": 1@,\n    "b": "auto" "x" 5,\n}\n'
text = BROKEN + open(path, encoding="utf-8").read() + "# \n"
URI = "file:///tmp/bench-syntax-keystrokes/manifest.py"
CPYTHON = "invalid syntax (manifest.py, line 2)"


def syntax_message(msg):
    for d in msg["params"]["diagnostics"]:
        if d.get("code") == "syntax-error" and d.get("source") == "torchcts":
            return d["message"]
    return None


def session(cpython_compile):
    proc = start_with(exe, URI, text, {"python": python, "cpythonCompile": cpython_compile})
    time.sleep(1.0)  # the inventory decoded, the worker started
    line = text.count("\n") - 1
    first, exact = [], []
    for n in range(100):
        version = n + 2
        change = {"range": {"start": {"line": line, "character": 2 + n}, "end": {"line": line, "character": 2 + n}},
                  "text": "x"}
        t0 = time.perf_counter()
        send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": URI, "version": version}, "contentChanges": [change]}})
        is_version = lambda m, v=version: (m.get("method") == "textDocument/publishDiagnostics"
                                           and m["params"].get("version") == v)
        msg = wait_for(proc, is_version, timeout=10.0)
        first.append(time.perf_counter() - t0)
        if CPYTHON in (syntax_message(msg) or ""):
            raise SystemExit(f"version {version}: the first diagnostics were already CPython's")
        if cpython_compile:
            while CPYTHON not in (syntax_message(msg) or ""):
                msg = wait_for(proc, is_version, timeout=10.0)
            exact.append(time.perf_counter() - t0)
    proc.kill()
    proc.wait()
    return first, exact


for on in (False, True, False, True):
    first, exact = session(on)
    show(f"cpythonCompile {'on ' if on else 'off'}: first diagnostics (the emulation's)", first)
    if on:
        show("cpythonCompile on : CPython's verdict published", exact)
