"""Type stubs of the native module ``torchcts_lsp._native`` (Rust, pyo3). Use the wrappers in
``torchcts_lsp``; these are the raw calls they make."""

import os
from typing import Any

from ._types import CheckReport, InventoryInfo, SkipsReport

__version__: str

def run_main(args: list[str]) -> int:
    """Runs the torchcts-lsp command line (``args`` without the program name; none: the
    language server on stdio) in this process and returns its exit code."""

def check(path_or_text: str | os.PathLike[str]) -> CheckReport:
    """``torchcts-lsp check FILE --format json``'s report. A ``str`` with a line break is
    manifest text, anything else a path."""

def skips(
    path: str | os.PathLike[str],
    level: int | None = None,
    level_exact: int | None = None,
    level_range: tuple[int, int] | str | None = None,
    device: str | None = None,
    inventory: str | os.PathLike[str] | None = None,
    torch: str | None = None,
) -> SkipsReport:
    """``torchcts-lsp skips FILE --format json``'s report."""

def report(
    path: str | os.PathLike[str],
    level: int | None = None,
    device: str | None = None,
    results: list[str] | None = None,
    inventory: str | os.PathLike[str] | None = None,
    torch: str | None = None,
) -> dict[str, Any]:
    """``torchcts-lsp report FILE --format json``'s support record."""

def inventory_info(path: str | os.PathLike[str] | None = None) -> InventoryInfo:
    """The embedded (or given) inventory's torchcts/torch versions and extraction date."""
