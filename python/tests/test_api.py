"""The Python API (`import torchcts_lsp`) against the cargo-built CLI: same findings, ranges and
counts, Python exceptions for bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path

import pytest

import torchcts_lsp
from torchcts_lsp import _native

from conftest import EXAMPLE, REPO, VALID


def cli_json(binary: Path, *args: str) -> dict:
    # The environment the package's calls count for: this interpreter's.
    env = {**os.environ, torchcts_lsp.PYTHON_ENV: sys.executable}
    done = subprocess.run([str(binary), *args, "--format", "json"], capture_output=True, text=True, timeout=120, env=env)
    assert done.stdout, f"{binary} {' '.join(args)} printed nothing (exit {done.returncode}): {done.stderr}"
    return json.loads(done.stdout)


def test_the_installed_package_is_tested():
    # Not the source tree: the wheel's copy, with its native module.
    assert Path(torchcts_lsp.__file__).resolve().is_relative_to(Path(sysconfig.get_paths()["purelib"]).resolve())
    assert Path(_native.__file__).name.startswith("_native.")


def test_check_reports_findings_with_one_based_ranges():
    result = torchcts_lsp.check(EXAMPLE)
    assert result.file == str(EXAMPLE)
    assert result.exit_code == 1 and not result.ok
    lines = EXAMPLE.read_text().splitlines()
    row = next(i for i, line in enumerate(lines) if '"generator"' in line)
    finding = next(f for f in result.findings if f.code == "unknown-key")
    assert finding.message == "Unknown capabilities key 'generator'"
    assert (finding.severity, finding.origin) == ("error", "torchcts")
    assert finding.range.start == torchcts_lsp.Position(line=row + 1, column=lines[row].index('"generator"') + 1)
    assert finding.range.end.column - finding.range.start.column == len('"generator"')
    assert finding in result.errors
    assert torchcts_lsp.OutputLine("stderr", "Error: Unknown capabilities key 'generator'") in result.output


def test_check_equals_the_cli_json(cargo_binary):
    expected = cli_json(cargo_binary, "check", str(EXAMPLE))
    assert _native.check(str(EXAMPLE)) == expected
    result = torchcts_lsp.check(EXAMPLE)
    assert [f.message for f in result.findings] == [f["message"] for f in expected["findings"]]
    assert result.exit_code == expected["exit_code"]


def test_check_of_a_valid_manifest_and_of_text():
    assert torchcts_lsp.check(VALID).ok
    assert torchcts_lsp.check(VALID).output == (torchcts_lsp.OutputLine("stdout", "Manifest is valid!"),)
    from_text = torchcts_lsp.check(VALID.read_text())
    assert from_text.file == "<text>"
    assert from_text.exit_code == 0
    broken = torchcts_lsp.check("manifest = {\n")
    assert broken.exit_code == 1
    assert broken.output[0].text.startswith("Failed to parse manifest:")


@pytest.mark.parametrize(
    "kwargs, flags",
    [
        ({}, []),
        ({"level": 4}, ["--level", "4"]),
        ({"level_exact": 2}, ["--level-exact", "2"]),
        ({"level_range": (2, 5)}, ["--level-range", "2:5"]),
        ({"level_range": "3:8", "device": "cpu"}, ["--level-range", "3:8", "--device", "cpu"]),
    ],
)
def test_skips_equal_the_cli_json(cargo_binary, kwargs, flags):
    expected = cli_json(cargo_binary, "skips", str(EXAMPLE), *flags)
    got = torchcts_lsp.skips(EXAMPLE, **kwargs)
    assert got["collected"] > 0 and got["levels"]
    assert [(r["level"], r["run"], r["filtered"]) for r in got["levels"]] == [
        (r["level"], r["run"], r["filtered"]) for r in expected["levels"]
    ]
    assert got["reason_counts"] == expected["reason_counts"]
    got["file"] = expected["file"]  # a Path given here, a str there
    assert got == expected


def test_versions():
    assert torchcts_lsp.__version__ == _native.__version__
    info = torchcts_lsp.inventory()
    assert set(info) == {"torchcts", "torch", "extracted_at"}
    assert torchcts_lsp.torchcts_version == info["torchcts"]
    assert torchcts_lsp.torch_version == info["torch"]
    assert info["torchcts"].count(".") == 2
    with pytest.raises(AttributeError):
        torchcts_lsp.no_such_attribute  # noqa: B018


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: torchcts_lsp.check("/nonexistent/manifest.py"), FileNotFoundError, "not found"),
        (lambda: torchcts_lsp.check(REPO / "examples"), ValueError, "directory"),
        (lambda: torchcts_lsp.check(42), TypeError, "path"),
        (lambda: torchcts_lsp.skips("/nonexistent/manifest.py"), FileNotFoundError, "not found"),
        (lambda: torchcts_lsp.skips(EXAMPLE, level=0), ValueError, "from 1 to 8"),
        (lambda: torchcts_lsp.skips(EXAMPLE, level=9), ValueError, "from 1 to 8"),
        (lambda: torchcts_lsp.skips(EXAMPLE, level=True), ValueError, "bool"),
        (lambda: torchcts_lsp.skips(EXAMPLE, level="4"), ValueError, "from 1 to 8"),
        (lambda: torchcts_lsp.skips(EXAMPLE, level_exact=12), ValueError, "from 1 to 8"),
        (lambda: torchcts_lsp.skips(EXAMPLE, level_range=(5, 2)), ValueError, "minimum must be <= maximum"),
        (lambda: torchcts_lsp.skips(EXAMPLE, level_range="two:five"), ValueError, "MIN:MAX"),
        (lambda: torchcts_lsp.skips(EXAMPLE, level_range=(1, 2, 3)), ValueError, "pair"),
        (lambda: torchcts_lsp.skips(EXAMPLE, level=2, level_exact=2), ValueError, "only one"),
        (lambda: torchcts_lsp.skips("manifest = 42\n"), ValueError, "does not evaluate"),
        (lambda: torchcts_lsp.skips(EXAMPLE, inventory="/nonexistent/inv.json.gz"), FileNotFoundError, "inventory"),
        (lambda: torchcts_lsp.skips(EXAMPLE, inventory=EXAMPLE), ValueError, "cannot load inventory"),
    ],
)
def test_bad_input_raises_python_exceptions(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_not_utf8_is_a_value_error(tmp_path):
    bad = tmp_path / "manifest.py"
    bad.write_bytes(b"manifest = {'device_name': '\xff'}\n")
    # CPython's own words for a byte it cannot decode in a string (what check-manifest prints:
    # tests/parity/check/encoding/encoding_utf8_error_in_string).
    with pytest.raises(ValueError, match="'utf-8' codec can't decode byte 0xff"):
        torchcts_lsp.check(bad)


def test_skips_releases_the_gil():
    # With a 1 s switch interval the main thread runs during the call only if the call
    # releases the GIL: the counter moves between the two reads of the worker.
    torchcts_lsp.skips(EXAMPLE)  # decode the embedded inventory first
    counter = [0]
    reads: list[int] = []
    started, done = threading.Event(), threading.Event()

    def worker():
        started.set()
        reads.append(counter[0])
        torchcts_lsp.skips(EXAMPLE, level=8)
        reads.append(counter[0])
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1.0)
    try:
        thread = threading.Thread(target=worker)
        thread.start()
        started.wait()
        while not done.is_set():
            counter[0] += 1
        thread.join()
    finally:
        sys.setswitchinterval(old)
    assert reads[1] > reads[0], f"the main thread did not run during skips(): {reads}"


def test_report_counts_crashes_apart_and_equals_the_cli_json(cargo_binary, tmp_path):
    """The support record through the API: a test whose process died (torchcts's `ProcessCrash`
    record) and one a known-segfault ledger entry recorded without running are counted apart
    from the errors, as `torchcts-lsp report --format json` counts them."""
    (tmp_path / "manifest.py").write_text(
        'import torch\nmanifest = {\n    "manifest_version": 1,\n    "device_name": "cpu",\n'
        '    "supported_dtypes": {torch.float32: True},\n    "semantic_level": 2,\n}\n'
    )
    forward = "opinfo/test_opinfo_forward.py::test_op_forward[clean-{}-torch.float32]"
    # A plain torchcts artifact, its records as torchcts 0.4.1 writes them (conftest.py).
    artifact = {
        "metadata": {
            "device_name": "cpu",
            "hardware_key": "cpu_vm",
            "timestamp": "2026-12-01T00:00:00Z",
            "pytorch_version": "2.12.1",
            "session_completed": True,
        },
        "results": {
            forward.format("add"): {"status": "PASS"},
            forward.format("sub"): {"status": "ERROR", "error_type": "ProcessCrash", "failure_stage": "process_crash",
                                    "error_message": "Subprocess crashed: returncode=-6 signal=SIGABRT"},
            forward.format("cos"): {"status": "ERROR", "failure_stage": "known_backend_crash",
                                    "error_message": "Known confirmed backend crash was recorded without executing"},
            forward.format("div"): {"status": "ERROR", "error_type": "RuntimeError", "failure_stage": "pytest_call",
                                    "error_message": "RuntimeError: not implemented"},
        },
        "skips": {},
    }
    history = tmp_path / "results" / "cpu_vm_history"
    history.mkdir(parents=True)
    (history / "2026-12-01T00-00-00Z.json").write_text(json.dumps(artifact))
    record = torchcts_lsp.report(tmp_path / "manifest.py", torch="2.12.1")
    tests = record["evidence"]["tests"]
    assert (tests["passed"], tests["errored"], tests["crashed"], tests["known_backend_crash"], tests["failed"]) == (1, 1, 1, 1, 0)
    statuses = {t["node_id"]: t.get("status") for row in record["matrix"] for cell in row["cells"] for t in cell["tests"]}
    assert statuses[forward.format("sub")] == "crashed"
    assert statuses[forward.format("cos")] == "known_backend_crash"
    expected = cli_json(cargo_binary, "report", str(tmp_path / "manifest.py"), "--torch", "2.12.1")
    assert record == expected
    with pytest.raises(FileNotFoundError):
        torchcts_lsp.report(tmp_path / "missing.py")
