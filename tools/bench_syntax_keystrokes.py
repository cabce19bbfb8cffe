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

    python3 tools/bench_syntax_keystrokes.py BIN PYTHON --missing-module

The same for `No module named 'X'`: a venv in a temporary folder (isolated, torch and
torchcts dist-info, its `bin/python` a link to PYTHON's interpreter) and the manifest
importing a module it lacks. Prints, for `cpythonCompile` on and off, the time to the first
diagnostics of 100 keystrokes while the module is missing (CPython's `find_spec` says so
too: its answer is kept), then, for 20 rounds of "install `orchN` into site-packages, edit
the import to `orchN`" (the server's listing, made once per environment, says it is
missing), the time to the first diagnostics (the listing's) and, when on, to those without
the error (CPython's `find_spec` found the module).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from lsp_pipe import send, show, start_with, wait_for

exe, python = sys.argv[1], sys.argv[2]
missing_module = "--missing-module" in sys.argv[3:]
rest = [a for a in sys.argv[3:] if a != "--missing-module"]
path = rest[0] if rest else "tests/parity/check/cases/template_complete/manifest.py"
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


def venv_with_torchcts(root):
    """A venv under `root` as torchcts-lsp reads it: isolated, torch and torchcts installed
    (dist-info and an empty package), `bin/python` a link to PYTHON's interpreter. Returns
    its python and site-packages."""
    about = subprocess.run([python, "-I", "-c", "import os, sys; print(os.path.realpath(sys.executable)); "
                            "print('%d.%d.%d' % sys.version_info[:3])"], capture_output=True, text=True, check=True)
    real, version = about.stdout.split()
    venv = os.path.join(root, ".venv")
    os.makedirs(os.path.join(venv, "bin"))
    os.symlink(real, os.path.join(venv, "bin", "python"))
    with open(os.path.join(venv, "pyvenv.cfg"), "w") as f:
        f.write(f"home = {os.path.dirname(real)}\ninclude-system-site-packages = false\nversion = {version}\n")
    site = os.path.join(venv, "lib", "python" + ".".join(version.split(".")[:2]), "site-packages")
    for package, release in (("torch", "2.12.1"), ("torchcts", "0.4.1")):
        install(site, package)
        info = os.path.join(site, f"{package}-{release}.dist-info")
        os.makedirs(info)
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write(f"Metadata-Version: 2.1\nName: {package}\nVersion: {release}\n")
    return os.path.join(venv, "bin", "python"), site


def install(site, package):
    os.makedirs(os.path.join(site, package))
    open(os.path.join(site, package, "__init__.py"), "w").close()


def has_missing(msg, module):
    return any(f"No module named '{module}'" in d["message"] for d in msg["params"]["diagnostics"])


def module_session(cpython_compile):
    root = tempfile.mkdtemp(prefix="bench-missing-module-")
    try:
        venv_python, site = venv_with_torchcts(root)
        manifest = os.path.join(root, "manifest.py")
        body = open(path, encoding="utf-8").read() + "# \n"
        text = "import orch0\n" + body
        with open(manifest, "w", encoding="utf-8") as f:
            f.write(text)
        uri = "file://" + manifest
        proc = start_with(exe, uri, text, {"python": venv_python, "cpythonCompile": cpython_compile})
        time.sleep(1.0)  # the inventory decoded, the environment listed, the worker started
        version = 1

        def edit(change):
            nonlocal version
            version += 1
            send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
            return lambda m, v=version: (m.get("method") == "textDocument/publishDiagnostics"
                                         and m["params"].get("version") == v)

        line = text.count("\n") - 1
        typing = []
        for n in range(100):
            t0 = time.perf_counter()
            is_version = edit({"range": {"start": {"line": line, "character": 2 + n},
                                         "end": {"line": line, "character": 2 + n}}, "text": "x"})
            if not has_missing(wait_for(proc, is_version), "orch0"):
                raise SystemExit(f"version {version}: orch0 is not said to be missing")
            typing.append(time.perf_counter() - t0)
        first, confirmed = [], []
        for n in range(1, 21):
            install(site, f"orch{n}")
            old = f"orch{n - 1}"
            t0 = time.perf_counter()
            is_version = edit({"range": {"start": {"line": 0, "character": 7},
                                         "end": {"line": 0, "character": 7 + len(old)}}, "text": f"orch{n}"})
            msg = wait_for(proc, is_version)
            first.append(time.perf_counter() - t0)
            if not has_missing(msg, f"orch{n}"):
                raise SystemExit(f"version {version}: the first diagnostics were not the listing's")
            if cpython_compile:
                while has_missing(msg, f"orch{n}"):
                    msg = wait_for(proc, is_version)
                confirmed.append(time.perf_counter() - t0)
        proc.kill()
        proc.wait()
        return typing, first, confirmed
    finally:
        shutil.rmtree(root, ignore_errors=True)


for on in (False, True, False, True):
    label = f"cpythonCompile {'on ' if on else 'off'}"
    if missing_module:
        typing, first, confirmed = module_session(on)
        show(f"{label}: typing while a module is missing, first diagnostics", typing)
        show(f"{label}: after an install, first diagnostics (the listing's)", first)
        if on:
            show(f"{label}: after an install, find_spec's answer published", confirmed)
        continue
    first, exact = session(on)
    show(f"{label}: first diagnostics (the emulation's)", first)
    if on:
        show(f"{label}: CPython's verdict published", exact)
