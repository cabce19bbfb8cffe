#!/usr/bin/env python3
"""Oracle of server/lsp/tests/check_differential.rs: the real `torchcts check-manifest` on many files.

Reads manifest paths from stdin, one per line, and for each calls
`torchcts.cli.check_manifest(path)` in this one process (torch and torchcts are imported
once, so a thousand files take seconds, not the ~2 s a `torchcts check-manifest` process
costs). For every path it writes one JSON line to stdout:

    {"path": ..., "exit_code": N, "lines": [...]}

`lines` are the non-empty lines a user sees, as in the parity corpus (regenerate.py):
stderr then stdout, the banner never printed (check_manifest does not print it), Python
`warnings` output left out, and an uncaught exception's traceback replaced by its last
line. A module the manifest imports is put back as it was afterwards (`sys.foo = 1` in
one file must not give the next one `sys.foo`: each real run is a fresh process).
`SystemExit` raised by a manifest ends `torchcts check-manifest` with its status;
here it is recorded the same way. A file that runs for more than 10 s is recorded with
`"timeout": true`.

Each file must see the fresh interpreter a `torchcts check-manifest` process gives it: a
manifest that sets a module's attribute (`sys.torchcts_backend = "cpu"`) must not make the
next file's read of it succeed. The attributes of the modules a file can name (those its
import lines name, with `sys`, `os`, `os.path` and `builtins`) are put back after each file.

Usage: python differential_oracle.py < paths.txt > results.jsonl
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import sys
import traceback
import warnings


class _Timeout(BaseException):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


_MISSING = object()
# One line at a time (`[ \t]`, not `\s`: `import sys` NEWLINE `import torch` is two).
_IMPORTED = re.compile(r"^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import|import[ \t]+([\w., \t]+))", re.M)


def _modules_named(path: str) -> list:
    try:
        with open(path, "rb") as f:
            # Universal newlines, as Python reads the file (a lone CR ends a line too).
            text = f.read().decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    except OSError:
        text = ""
    names = {"sys", "os", "os.path", "builtins"}
    for m in _IMPORTED.finditer(text):
        for part in (m.group(1) or m.group(2) or "").split(","):
            words = part.split()
            name = words[0] if words else ""
            while name:
                names.add(name)
                name = name.rpartition(".")[0]
    mods = []
    for name in names:
        mod = sys.modules.get(name)
        if mod is not None and hasattr(mod, "__dict__"):
            mods.append(mod)
    return mods


def check_one(check_manifest, path: str) -> dict:
    saved = [(mod, dict(mod.__dict__)) for mod in _modules_named(path)]
    # What `sys.argv` holds when the real tool runs (`regenerate.py`'s command line).
    sys.argv = [os.path.join(os.path.dirname(sys.executable), "torchcts"), "check-manifest", "--manifest", path]
    try:
        return _check_one(check_manifest, path)
    finally:
        for mod, attrs in saved:
            now = mod.__dict__
            # By identity, key by key: `==` on a module's values may run their own code.
            for key in [k for k in now if k not in attrs]:
                del now[key]
            for key, value in attrs.items():
                if now.get(key, _MISSING) is not value:
                    now[key] = value


def _check_one(check_manifest, path: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    result: dict = {"path": path}
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(10)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
            # Python's own warnings (re's FutureWarnings) are not check-manifest's output.
            warnings.simplefilter("ignore")
            try:
                code = check_manifest(path)
            except SystemExit as e:
                if e.code is None:
                    code = 0
                elif isinstance(e.code, int):
                    # The process status keeps the low 8 bits (`sys.exit(-1)` ends with 255).
                    code = e.code % 256
                else:
                    print(e.code, file=sys.stderr)
                    code = 1
            except _Timeout:
                raise
            except BaseException as e:  # an uncaught exception: Python prints its traceback
                last = traceback.format_exception_only(type(e), e)[-1].rstrip("\n")
                print(last, file=sys.stderr)
                code = 1
    except _Timeout:
        result["timeout"] = True
        code = 1
    finally:
        signal.alarm(0)
    result["exit_code"] = code
    text = err.getvalue() + out.getvalue()
    result["lines"] = [line for line in text.replace("\r\n", "\n").split("\n") if line != ""]
    return result


def main() -> int:
    for var in ("TORCHCTS_USE_PROJECT_VENV", "_TORCHCTS_VENV_ACTIVE"):
        os.environ.pop(var, None)
    sys.dont_write_bytecode = True
    from torchcts.cli import check_manifest
    import torch  # noqa: F401  (manifests import it; pay for it once, before the first file)
    from torchcts.core import manifest_schema  # noqa: F401

    # Manifests may chdir; the paths are absolute, but keep the start directory anyway.
    start = os.getcwd()
    for raw in sys.stdin:
        path = raw.rstrip("\n")
        if not path:
            continue
        result = check_one(check_manifest, path)
        os.chdir(start)
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
