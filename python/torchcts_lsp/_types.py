"""The shapes of the reports the native module returns (the CLI's ``--format json``)."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

Severity = Literal["error", "warning", "information", "hint"]
Origin = Literal["torchcts", "lsp"]


class PositionDict(TypedDict):
    line: int
    column: int


class RangeDict(TypedDict):
    start: PositionDict
    end: PositionDict


class _FindingRequired(TypedDict):
    code: str
    message: str
    severity: Severity
    origin: Origin
    range: RangeDict


class FindingDict(_FindingRequired, total=False):
    data: dict[str, Any]


class OutputLineDict(TypedDict):
    stream: Literal["stdout", "stderr"]
    text: str


class CheckReport(TypedDict):
    """``torchcts-lsp check FILE --format json``."""

    file: str
    exit_code: int
    check_manifest_output: list[OutputLineDict]
    findings: list[FindingDict]
    python: str
    """The CPython minor version whose ``re`` answered for the regexes (``"3.12"``)."""


class InventoryInfo(TypedDict):
    """The torchcts and torch versions an inventory was extracted from."""

    torchcts: str
    torch: str
    extracted_at: str


class ReasonCount(TypedDict):
    reason: str
    count: int


class LevelRow(TypedDict):
    level: int
    collected: int
    run: int
    filtered: int
    run_cumulative: int


SkipsReport = TypedDict(
    "SkipsReport",
    {
        "file": str,
        # torchcts, torch (the release counted for), extracted_with_torch, extracted_at,
        # note (why these counts may not be for your environment, or None).
        "inventory": dict[str, Any],
        # Keys: "name", "class", "assumed" ("class" is a keyword, hence this form).
        "device": dict[str, Any],
        "selection": str,
        "collected": int,
        "deselected": int,
        "included": int,
        "executable": int,
        "reason_counts": list[ReasonCount],
        "levels": list[LevelRow],
        # node_id, printed_id, reason, detail, level, deselected, live_device_dependent.
        "records": list[dict[str, Any]],
        # Long regexes and values, listed once; records refer to them by index.
        "patterns": list[str],
        "values": list[str],
        "not_modelled": Any,
        "live_device_dependent": int,
        "not_static": list[str],
        "problems": list[str],
    },
)
SkipsReport.__doc__ = "``torchcts-lsp skips FILE --format json``: what ``torchcts show-skips`` reports."
