"""Variants of a torchcts results file, and what torchcts's own loader makes of each (issue 35).

Writes `tests/fixtures/runs/artifacts/variants/<name>/` (a results folder: `cpu_fixture_latest.json`,
sometimes a `cpu_fixture_history/`) and `variants/expected.json`: for each variant, what
`torchcts.core.result_artifacts.load_result_artifact` did with its `_latest.json`:

- `{"kind": "run", "records": N, "statuses": {...}}`: loaded, with N records (entries of
  `results` that are objects with a status torchcts writes: PASS, FAIL, ERROR, SKIP);
- `{"kind": "not_a_run"}`: loaded, but `metadata` or `results` is no object;
- `{"kind": "refused", "error": "..."}`: the loader raised.

`server/runner/tests/evidence_variants.rs` reads each folder with the evidence index and compares
with the committed expected.json (no Python at test time). Run with the real venv:

    /tmp/tv/bin/python tools/runs/artifact_variants.py
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from torchcts.core.result_artifacts import dumps_result_artifact, load_result_artifact

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests/fixtures/runs/artifacts"
OUT = ARTIFACTS / "variants"
LATEST = "cpu_fixture_latest.json"
STATUSES = ("PASS", "FAIL", "ERROR", "SKIP")


def expanded() -> dict:
    return json.loads((ARTIFACTS / "synthetic/expanded.json").read_text())


def compact_text() -> str:
    text = dumps_result_artifact(expanded())
    assert '"format":"torchcts_compact_results"' in text, "the encoder chose the plain form"
    return text.strip()


def plain_text(payload: dict) -> str:
    return json.dumps(payload, separators=(",", ":"), sort_keys=True)


def variants() -> dict[str, dict[str, str | bytes]]:
    """name -> {relative path: content}."""
    compact = compact_text()
    plain = plain_text(expanded())
    add = "opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]"
    nan = expanded()
    nan["results"][add]["cosim"] = float("nan")
    nan["results"][add]["maxerr"] = float("inf")
    nan["results"][add]["minerr"] = float("-inf")
    nan_text = json.dumps(nan, sort_keys=True).replace('"op": "add"', '"op": "add", "big": 1e999, "zero": -0')
    statuses = expanded()
    for i, status in enumerate([None, 1, ["PASS"], "Passed", {"x": 1}]):
        statuses["results"][f"t.py::bad[{i}]"] = {"status": status}
    statuses["results"]["t.py::string"] = "PASS"
    statuses["results"]["t.py::nostatus"] = {"op": "add"}
    history = "cpu_fixture_history/2026-11-30T16-24-12Z.json"
    reference = lambda artifact, version=1: json.dumps(  # noqa: E731
        {"format": "torchcts_result_reference", "format_version": version, "artifact": artifact}
    )
    first_results = plain.replace('"results":{', '"results":{"t.py::only":{"status":"FAIL"}},"results":{', 1)
    return {
        "plain": {LATEST: plain},
        "compact": {LATEST: compact},
        "compact_version_float": {LATEST: compact.replace('"format_version":1', '"format_version":1.0')},
        "compact_version_true": {LATEST: compact.replace('"format_version":1', '"format_version":true')},
        "compact_version_2": {LATEST: compact.replace('"format_version":1', '"format_version":2')},
        "compact_index_minus_zero": {LATEST: compact.replace('{"$":0}', '{"$":-0}')},
        "compact_index_float": {LATEST: compact.replace('{"$":0}', '{"$":0.0}', 1)},
        "compact_index_bool": {LATEST: compact.replace('{"$":0}', '{"$":false}', 1)},
        "compact_index_out_of_range": {LATEST: compact.replace('{"$":0}', '{"$":1}', 1)},
        "compact_index_huge": {LATEST: compact.replace('{"$":0}', '{"$":123456789012345678901234567890}', 1)},
        "compact_index_in_skips_out_of_range": {LATEST: compact[::-1].replace('{"$":0}'[::-1], '{"$":7}'[::-1], 1)[::-1]},
        "compact_key_decodes_twice": {LATEST: compact.replace('"3":"PASS"', '"3":"PASS","~status":"FAIL"', 1)},
        "compact_raw_key_repeated": {LATEST: compact.replace('"3":"PASS"', '"3":"FAIL","3":"PASS"', 1)},
        "compact_key_table_duplicates": {LATEST: compact.replace('"key_table":["', '"key_table":["op","op","', 1)},
        "compact_key_table_repeated_last_valid": {
            LATEST: compact.replace('"key_table":[', '"key_table":7,"key_table":[', 1)
        },
        "compact_string_table_not_strings": {LATEST: compact.replace('"string_table":["', '"string_table":[1,"', 1)},
        "compact_payload_string": {LATEST: compact.split(',"payload":')[0] + ',"payload":{"$":0},"string_table":["x"]}'},
        "compact_dollar_results": {
            LATEST: compact.replace('"results":{', '"results":{"$":0},"unused":{', 1)
        },
        "nan_infinity_big_exponent": {LATEST: nan_text},
        "statuses_of_wrong_types": {LATEST: plain_text(statuses)},
        "results_repeated_last_wins": {LATEST: first_results},
        "results_not_an_object": {LATEST: plain.replace('"results":{', '"results":[{', 1).replace(',"skips"', '],"skips"', 1)},
        "not_an_object": {LATEST: "[1, 2]"},
        "truncated": {LATEST: compact[: len(compact) // 2]},
        "byte_order_mark": {LATEST: "\ufeff" + plain},
        "invalid_utf8": {LATEST: plain.encode().replace(b"Skipped", b"Skip\xffed", 1)},
        "extra_data": {LATEST: plain + " {}"},
        "crlf_and_tabs": {LATEST: json.dumps(expanded(), indent="\t").replace("\n", "\r\n")},
        "reference": {LATEST: reference(history), history: compact},
        "reference_trailing_slash": {LATEST: reference(history + "/"), history: compact},
        "reference_dot_parts": {LATEST: reference("./cpu_fixture_history//2026-11-30T16-24-12Z.json"), history: compact},
        "reference_version_float": {LATEST: reference(history, 1.0), history: compact},
        "reference_version_2": {LATEST: reference(history, 2), history: compact},
        "reference_escapes": {LATEST: reference("../x.json"), history: compact},
        "reference_absolute": {LATEST: reference("/etc/passwd"), history: compact},
        "reference_empty": {LATEST: reference(""), history: compact},
        "reference_missing": {LATEST: reference("cpu_fixture_history/none.json")},
        "reference_to_reference": {
            LATEST: reference("cpu_fixture_history/next.json"),
            "cpu_fixture_history/next.json": reference("2026-11-30T16-24-12Z.json"),
            history: plain,
        },
    }


def outcome(latest: Path) -> dict:
    try:
        payload = load_result_artifact(latest)
    except Exception as exc:  # noqa: BLE001 - any exception is the loader refusing the file
        error = f"{type(exc).__name__}: {exc}".replace(str(latest.parent), "<folder>")
        return {"kind": "refused", "error": error[:200]}
    results, metadata = payload.get("results"), payload.get("metadata")
    if not isinstance(results, dict) or not isinstance(metadata, dict):
        return {"kind": "not_a_run"}
    records = [r for r in results.values() if isinstance(r, dict) and r.get("status") in STATUSES]
    return {"kind": "run", "records": len(records), "statuses": dict(sorted(Counter(r["status"] for r in records).items()))}


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    expected = {}
    for name, files in variants().items():
        folder = OUT / name
        for relative, content in files.items():
            path = folder / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str):
                content = content.encode()
            path.write_bytes(content)
        expected[name] = outcome(folder / LATEST)
    (OUT / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"{len(expected)} variants:", dict(Counter(v["kind"] for v in expected.values())))


if __name__ == "__main__":
    main()
