#!/usr/bin/env python3
"""Regenerate tests/fixtures/runs/artifacts/ from a real torchcts install.

Usage (from the repository root, with the Python that has torch, torchcts and, for the
workers fixtures, pytest-xdist):
    nice /path/to/venv/bin/python tools/runs/make_fixtures.py [NAME...]

Writes, under tests/fixtures/runs/artifacts/:
  focused/        a real `torchcts run` of three opinfo forward nodes on cpu with a backend
                  (backend_import) whose aten::sub raises: results/ (latest.json reference +
                  history/<time>.json compact artifact + report.md), stdout.txt, meta.json
  crash/          the same with a backend whose aten::sub segfaults: results/ (the plain
                  latest.json torchcts leaves after a crash), stdout.txt, stderr.txt, meta.json
  synthetic/      a payload with every status, escaped keys and repeated strings, encoded by
                  torchcts's own encoder: compact.json and expanded.json (what decoding must give)
  killed/         a run of four nodes with a backend whose aten::sub hangs, stopped (SIGTERM to
                  its process group, as the runner's cancel does) once two tests had passed:
                  the plain latest.json (session_completed false) a run cut short leaves
  workers/        `-n 2` (pytest-xdist): the crashy backend's run of three nodes; xdist reports
                  the worker that segfaulted ("node down") and completes the session: results/
                  as a completed run, stdout.txt with xdist's `[gwK] [ NN%] STATUS` lines
  workers_killed/ `-n 2` with the hanging backend, stopped once two tests had passed: the
                  per-worker latest.gwK.json files a stopped parallel run leaves, no latest.json

meta.json holds what the Rust tests need to read stdout.txt as the runner would: the working
directory and the rootdir (the torchcts package) of that run, and the exit status.
The Rust tests (server/runner/tests/runs.rs) only read these files; they never need torch.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

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


HANGY = '''import time
import torch
_lib = torch.library.Library("aten", "IMPL")
def _sub(*args, **kwargs):
    time.sleep(1000)
_lib.impl("sub.Tensor", _sub, "CPU")
'''

RESULT_WORDS = (" PASSED", " FAILED", " ERROR", " SKIPPED")


def manifest(backend):
    with open(TEMPLATE, encoding="utf-8") as f:
        text = f.read()
    text = text.replace('"device_name": "auto"', '"device_name": "cpu"')
    return text.replace('"backend_import": None', f'"backend_import": "{backend}"')


def run(name, backend_source, nodes, workers=0, stop_after=None):
    """A run as the runner starts it; with `stop_after`, stopped like the runner's cancel
    (SIGTERM to the process group, SIGKILL 5 s later) once that many tests have a result."""
    work = tempfile.mkdtemp(prefix=f"torchcts-fixture-{name}-")
    with open(os.path.join(work, "manifest.py"), "w", encoding="utf-8") as f:
        f.write(manifest(f"{name}_backend"))
    with open(os.path.join(work, f"{name}_backend.py"), "w", encoding="utf-8") as f:
        f.write(backend_source)
    results = os.path.join(work, "results")
    # The runner's command line (server/runner/src/command.rs).
    argv = [sys.executable, "-m", "torchcts", "run", "--device=cpu", "--non-interactive",
            f"--results-dir={results}", f"--rootdir={PKG}", f"--confcutdir={os.path.dirname(PKG)}",
            "-pno:cacheprovider", "--color=no", "-v", "-rfE"]
    if workers > 1:
        argv += ["-n", str(workers)]
    argv += [os.path.join(PKG, n) for n in nodes]
    env = dict(os.environ, PYTHONUNBUFFERED="1", TORCHCTS_NON_INTERACTIVE="1")
    if stop_after is None:
        proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    else:
        proc = stopped_run(argv, work, env, stop_after)
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
    if workers > 1:
        meta["workers"] = workers
    if stop_after is not None:
        meta["stopped_after_results"] = stop_after
    with open(os.path.join(dest, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{name}: exit {proc.returncode}")


def stopped_run(argv, work, env, stop_after):
    err_path = os.path.join(work, "stderr.log")
    with open(err_path, "wb") as err:
        child = subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=err,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
        out = b""
        deadline = time.monotonic() + 600
        # Chunks, not lines: under xdist a result line gets its newline only with the next one.
        while time.monotonic() < deadline:
            chunk = os.read(child.stdout.fileno(), 65536)
            if not chunk:
                break
            out += chunk
            lines = out.decode("utf-8", "replace").splitlines()
            if sum(1 for t in lines if "::" in t and any(w in t for w in RESULT_WORDS)) >= stop_after:
                break
        try:
            os.killpg(child.pid, signal.SIGTERM)
            rest, _ = child.communicate(timeout=5)
        except ProcessLookupError:
            rest, _ = child.communicate()
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            rest, _ = child.communicate()
        out += rest or b""
    with open(err_path, "rb") as f:
        err = f.read()
    return subprocess.CompletedProcess(argv, child.returncode, out, err)


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


FOUR = [f"{FWD}[clean-{op}-torch.float32]" for op in ("add", "cos", "sub", "exp")]

FIXTURES = {
    "focused": lambda: run("focused", FAULTY, [f"{FWD}[clean-add-torch.float32]", f"{FWD}[clean-sub-torch.float32]",
                                               "opinfo/test_opinfo_backward.py::test_op_backward[add-torch.float32]"]),
    "crash": lambda: run("crash", CRASHY, [f"{FWD}[clean-add-torch.float32]", f"{FWD}[clean-sub-torch.float32]"]),
    "synthetic": synthetic,
    "killed": lambda: run("killed", HANGY, FOUR, stop_after=2),
    "workers": lambda: run("workers", CRASHY, [f"{FWD}[clean-{op}-torch.float32]" for op in ("add", "sub", "cos")],
                           workers=2),
    # xdist hands each worker two of the four at once: the one with `sub` never gets further.
    "workers_killed": lambda: run("workers_killed", HANGY, FOUR, workers=2, stop_after=2),
}


def main():
    """Every fixture, or the ones named on the command line (the tests pin the figures of
    each, such as times and hardware keys, so regenerate only what you mean to update)."""
    names = sys.argv[1:] or list(FIXTURES)
    unknown = [n for n in names if n not in FIXTURES]
    if unknown:
        sys.exit(f"unknown fixture(s) {unknown}; known: {list(FIXTURES)}")
    for name in names:
        FIXTURES[name]()


if __name__ == "__main__":
    main()
