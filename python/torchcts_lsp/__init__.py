"""torchcts-lsp from Python: check TorchCTS ``manifest.py`` files and count what
``torchcts show-skips`` would report, without running torch.

    >>> import torchcts_lsp
    >>> result = torchcts_lsp.check("manifest.py")
    >>> result.exit_code                      # what `torchcts check-manifest` exits with
    >>> for f in result.errors:
    ...     print(f.range.start.line, f.code, f.message)
    >>> report = torchcts_lsp.skips("manifest.py", level=4)
    >>> [(row["level"], row["run"]) for row in report["levels"]]

The ``torchcts-lsp`` command this package installs (also ``python -m torchcts_lsp``) is the
language server and CLI, the same as the cargo-built binary: one Rust core, and this module
is a thin binding of it.

When the server runs from this package, the interpreter running it (``sys.executable``) is
the default Python for test runs and for the environment's torch/torchcts versions, after the
``python`` setting, ``$VIRTUAL_ENV`` and a workspace ``.venv``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, Literal, Sequence, Union

from . import _native
from ._types import CheckReport, InventoryInfo, Origin, Severity, SkipsReport

__version__: str = _native.__version__

#: The environment variable through which the server learns the package's interpreter.
PYTHON_ENV = "TORCHCTS_LSP_PYTHON"

PathOrText = Union[str, "os.PathLike[str]"]

__all__ = [
    "CheckResult",
    "Finding",
    "OutputLine",
    "Position",
    "Range",
    "__version__",
    "check",
    "inventory",
    "report",
    "serve",
    "skips",
    "torch_version",
    "torchcts_version",
]


@dataclass(frozen=True)
class Position:
    """A 1-based line and column (columns count Unicode code points)."""

    line: int
    column: int


@dataclass(frozen=True)
class Range:
    """Where a finding is: ``start`` inclusive, ``end`` exclusive."""

    start: Position
    end: Position


@dataclass(frozen=True)
class Finding:
    """One diagnostic: torchcts's own (``origin == "torchcts"``: same text and severity as
    ``check-manifest``) or one of torchcts-lsp's hints (``origin == "lsp"``)."""

    code: str
    message: str
    severity: Severity
    origin: Origin
    range: Range
    #: Rule-specific facts (e.g. the unknown key and its section), or None.
    data: dict[str, Any] | None = None


@dataclass(frozen=True)
class OutputLine:
    """One line ``torchcts check-manifest`` prints, and the stream it goes to."""

    stream: Literal["stdout", "stderr"]
    text: str


@dataclass(frozen=True)
class CheckResult:
    """What :func:`check` found."""

    #: The path given, or ``"<text>"`` for manifest text.
    file: str
    #: ``torchcts check-manifest``'s exit code (0: valid).
    exit_code: int
    #: ``torchcts check-manifest``'s lines (without its banner).
    output: tuple[OutputLine, ...]
    #: Every finding, torchcts's and torchcts-lsp's, in source order.
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        """True when check-manifest accepts the manifest (exit code 0)."""
        return self.exit_code == 0

    @property
    def errors(self) -> tuple[Finding, ...]:
        """The findings of severity ``error``."""
        return tuple(f for f in self.findings if f.severity == "error")

    @classmethod
    def from_report(cls, report: CheckReport) -> CheckResult:
        """Builds the result from ``torchcts-lsp check --format json``'s report."""

        def position(p: Any) -> Position:
            return Position(line=p["line"], column=p["column"])

        return cls(
            file=report["file"],
            exit_code=report["exit_code"],
            output=tuple(OutputLine(stream=line["stream"], text=line["text"]) for line in report["check_manifest_output"]),
            findings=tuple(
                Finding(
                    code=f["code"],
                    message=f["message"],
                    severity=f["severity"],
                    origin=f["origin"],
                    range=Range(start=position(f["range"]["start"]), end=position(f["range"]["end"])),
                    data=f.get("data"),
                )
                for f in report["findings"]
            ),
        )


def check(path_or_text: PathOrText) -> CheckResult:
    """Checks a manifest as ``torchcts check-manifest`` does, plus torchcts-lsp's hints.

    ``path_or_text``: a path (``str`` or ``os.PathLike``), or the manifest's text (a ``str``
    with a line break; ``custom_test_dirs`` are then relative to the current folder).

    Raises ``FileNotFoundError`` for a missing file, ``ValueError`` for a file that is not
    UTF-8 text, ``TypeError`` for anything else than a path or text. A manifest with
    errors is not an exception: see ``exit_code`` and ``findings``.
    """
    return CheckResult.from_report(_native.check(path_or_text))


def skips(
    path: PathOrText,
    level: int | None = None,
    level_exact: int | None = None,
    level_range: tuple[int, int] | str | None = None,
    device: str | None = None,
    *,
    inventory: str | os.PathLike[str] | None = None,
    torch: str | None = None,
) -> SkipsReport:
    """What ``torchcts show-skips`` reports for a manifest, counted from the suite inventory
    (no torch needed): the dict ``torchcts-lsp skips FILE --format json`` prints, with
    per-level ``levels`` rows, ``reason_counts``, every not-run ``records`` entry and the
    totals (``collected``, ``deselected``, ``executable``).

    At most one of ``level`` (levels 1..N), ``level_exact`` (level N only) and
    ``level_range`` (``(min, max)`` or ``"min:max"``) may be given; none: the manifest's
    ``semantic_level``. ``device``: as ``show-skips --device`` (default: the manifest's).
    ``inventory``: another inventory file (``torchcts-lsp inventory``); ``torch``: the torch
    release whose embedded inventory to count with; default: the embedded inventory for the
    torch installed in this interpreter's environment (as the ``torchcts-lsp`` command
    chooses it), else the newest. ``report["inventory"]`` says which was used and why.

    Raises ``ValueError`` for a bad level or a manifest that does not evaluate,
    ``FileNotFoundError`` for a missing manifest or inventory file. The GIL is released
    while counting.
    """
    os.environ.setdefault(PYTHON_ENV, sys.executable)
    return _native.skips(path, level, level_exact, level_range, device, inventory, torch)


def report(
    path: str | os.PathLike[str],
    level: int | None = None,
    device: str | None = None,
    *,
    results: Sequence[str | os.PathLike[str]] = (),
    inventory: str | os.PathLike[str] | None = None,
    torch: str | None = None,
) -> dict[str, Any]:
    """The support record of a manifest: the dict ``torchcts-lsp report FILE --format json``
    prints. ``record["evidence"]["tests"]`` counts what the newest record of each test that
    runs says: ``passed``, ``failed``, ``errored``, ``crashed`` (the process died during the
    test), ``known_backend_crash`` (recorded without running by a known-segfault ledger
    entry), ``skipped``, ``no_record``; ``record["entries"]`` the same per manifest entry.

    The records are read from ``results/`` beside the manifest, ``.torchcts-lsp/results``
    (where ``torchcts-lsp run`` and the editor put them), the project's ``results`` and the
    folders in ``results``. ``level``, ``device``, ``inventory`` and ``torch`` as in
    :func:`skips`. Raises ``FileNotFoundError`` for a missing manifest, ``ValueError`` for a
    bad level or a manifest that does not evaluate.
    """
    os.environ.setdefault(PYTHON_ENV, sys.executable)
    return _native.report(path, level, device, [os.fspath(r) for r in results], inventory, torch)


def inventory(path: str | os.PathLike[str] | None = None) -> InventoryInfo:
    """The torchcts and torch versions the embedded inventory (or the file at ``path``) was
    extracted from, and when."""
    return _native.inventory_info(path)


def serve() -> int:
    """Runs the language server on this process's stdin/stdout until the client says
    ``exit``; returns the exit code. This interpreter becomes the server's default Python."""
    os.environ.setdefault(PYTHON_ENV, sys.executable)
    sys.stdout.flush()
    return _native.run_main([])


def __getattr__(name: str) -> str:
    # The inventory's versions, decoded on first use so that `import torchcts_lsp` stays fast.
    if name == "torchcts_version":
        return inventory()["torchcts"]
    if name == "torch_version":
        return inventory()["torch"]
    raise AttributeError(f"module 'torchcts_lsp' has no attribute {name!r}")
