#!/usr/bin/env python3
"""Regenerate tests/fixtures/runs/artifacts/ from a real torchcts install.

Usage (from the repository root, with the Python that has torch and torchcts):
    nice /path/to/venv/bin/python tools/runs/make_fixtures.py

Writes, under tests/fixtures/runs/artifacts/:
  focused/        a real `torchcts run` of three opinfo forward nodes on cpu with a backend
                  (backend_import) whose aten::sub raises: results/ (latest.json reference +
                  history/<time>.json compact artifact + report.md), stdout.txt, meta.json
  crash/          the same with a backend whose aten::sub segfaults: results/ (the plain
                  latest.json torchcts leaves after a crash), stdout.txt, stderr.txt, meta.json
  synthetic/      a payload with every status, escaped keys and repeated strings, encoded by
                  torchcts's own encoder: compact.json and expanded.json (what decoding must give)

meta.json holds what the Rust tests need to read stdout.txt as the runner would: the working
directory and the rootdir (the torchcts package) of that run, and the exit status.
The Rust tests (tests/runs.rs) only read these files; they never need torch.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import torchcts
from torchcts.core.result_artifacts import encode_compact_result
from torchcts.core.result_sanitization import sanitize_result_payload

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "fixtures", "runs", "artifacts")
PKG = os.path.dirname(os.path.abspath(torchcts.__file__))
TEMPLATE = os.path.join(PKG, "templates", "manifest.minimal.py")
FWD = "opinfo/test_opinfo_forward.py::test_op_forward"

FAULTY = '''import torch
_lib = torch.library.Library("aten", "IMPL")
def _sub(*args, **kwargs):
    raise RuntimeError("sub kernel not implemented on this backend")
_lib.impl("sub.Tensor", _sub, "CPU")
'''

CRASHY = '''import os, signal
import torch
_lib = torch.library.Library("aten", "IMPL")
def _sub(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGSEGV)
_lib.impl("sub.Tensor", _sub, "CPU")
'''


def manifest(backend):
    with open(TEMPLATE, encoding="utf-8") as f:
        text = f.read()
    text = text.replace('"device_name": "auto"', '"device_name": "cpu"')
    return text.replace('"backend_import": None', f'"backend_import": "{backend}"')


def run(name, backend_source, nodes):
    work = tempfile.mkdtemp(prefix=f"torchcts-fixture-{name}-")
    with open(os.path.join(work, "manifest.py"), "w", encoding="utf-8") as f:
        f.write(manifest(f"{name}_backend"))
    with open(os.path.join(work, f"{name}_backend.py"), "w", encoding="utf-8") as f:
        f.write(backend_source)
    results = os.path.join(work, "results")
    # The runner's command line (server/lsp/src/runner/command.rs).
    argv = [sys.executable, "-m", "torchcts", "run", "--device=cpu", "--non-interactive",
            f"--results-dir={results}", f"--rootdir={PKG}", f"--confcutdir={os.path.dirname(PKG)}",
            "-pno:cacheprovider", "--color=no", "-v", "-rfE"] + [os.path.join(PKG, n) for n in nodes]
    env = dict(os.environ, PYTHONUNBUFFERED="1", TORCHCTS_NON_INTERACTIVE="1")
    proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    dest = os.path.join(OUT, name)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    shutil.copytree(results, os.path.join(dest, "results"),
                    ignore=shutil.ignore_patterns("*_runlog*.txt", "*_adaptive_isolation.json"))
    with open(os.path.join(dest, "stdout.txt"), "wb") as f:
        f.write(proc.stdout)
    if proc.stderr and proc.returncode < 0:
        with open(os.path.join(dest, "stderr.txt"), "wb") as f:
            f.write(proc.stderr[-4000:])
    meta = {"cwd": os.path.realpath(work), "rootdir": PKG, "returncode": proc.returncode, "nodes": nodes}
    with open(os.path.join(dest, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{name}: exit {proc.returncode}")


def synthetic():
    fail_msg = "Mismatch for add: max abs error 0.5 > atol 1e-05\nassert False\n  File \"x.py\", line 3"
    payload = {
        "metadata": {"device_name": "cpu", "hardware_key": "cpu_fixture", "session_completed": True,
                     "$": "a literal dollar key", "~tilde": "a literal tilde key"},
        "results": {
            f"{FWD}[clean-add-torch.float32]": {"status": "PASS", "op": "add", "dtype": "torch.float32",
                                                "error_message": None, "error_type": None},
            f"{FWD}[clean-mul-torch.float32]": {"status": "FAIL", "op": "mul", "dtype": "torch.float32",
                                                "error_message": fail_msg, "error_type": "AssertionError"},
            f"{FWD}[clean-sub-torch.float32]": {"status": "ERROR", "op": "sub", "dtype": "torch.float32",
                                                "error_message": "sub kernel not implemented\n  File ...",
                                                "error_type": "RuntimeError"},
            f"{FWD}[clean-div-torch.float32]": {"status": "SKIP", "op": "div", "dtype": "torch.float32",
                                                "error_message": "Skipped: no samples", "error_type": "Skipped",
                                                "skip_reason": "opinfo_no_samples", "skip_detail": "no samples"},
        },
        "skips": {
            "opinfo/test_opinfo_backward.py::test_op_backward[add-torch.float32]": {
                "op": "add", "dtype": "torch.float32", "skip_reason": "capability_not_declared",
                "detail": "requires capabilities: training"},
        },
        "harness_probe_failures": [],
    }
    payload = sanitize_result_payload(payload)
    dest = os.path.join(OUT, "synthetic")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    with open(os.path.join(dest, "compact.json"), "w", encoding="utf-8") as f:
        json.dump(encode_compact_result(payload), f, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    with open(os.path.join(dest, "expanded.json"), "w", encoding="utf-8") as f:
        json.dump(payload, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    print("synthetic: written")


def main():
    run("focused", FAULTY, [f"{FWD}[clean-add-torch.float32]", f"{FWD}[clean-sub-torch.float32]",
                            "opinfo/test_opinfo_backward.py::test_op_backward[add-torch.float32]"])
    run("crash", CRASHY, [f"{FWD}[clean-add-torch.float32]", f"{FWD}[clean-sub-torch.float32]"])
    synthetic()


if __name__ == "__main__":
    main()
