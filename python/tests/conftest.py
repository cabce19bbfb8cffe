"""Shared fixtures of the Python package's tests (run from a venv where the wheel is installed:
see .ci/run). TORCHCTS_LSP_BIN: the cargo-built binary to compare with (default
target/debug/torchcts-lsp)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "manifest.py"
VALID = REPO / "tests" / "parity" / "check" / "cases" / "caps_all_false_valid" / "manifest.py"


@pytest.fixture(scope="session")
def cargo_binary() -> Path:
    """The cargo-built torchcts-lsp, the reference the package must agree with."""
    path = Path(os.environ.get("TORCHCTS_LSP_BIN") or REPO / "target" / "debug" / "torchcts-lsp")
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.fail(f"no cargo-built torchcts-lsp at {path}: build it (cargo build -p torchcts-lsp) or set TORCHCTS_LSP_BIN")
    return path


@pytest.fixture(scope="session")
def installed_command() -> Path:
    """The `torchcts-lsp` console script of this interpreter's environment."""
    found = shutil.which("torchcts-lsp", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"no torchcts-lsp command beside {sys.executable}: is the wheel installed in this venv?")
    return Path(found)
