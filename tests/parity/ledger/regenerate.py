#!/usr/bin/env python3
"""Regenerate the project known-segfault ledger corpus from a real torchcts install.

    PY tests/parity/ledger/regenerate.py   # PY: a Python with torchcts (e.g. /tmp/tv/bin/python)

For every case of cases.json (a name and the ledger file's text) it writes the file as
`known_segfaults.json` in a scratch folder and asks torchcts what its `pytest_configure`
asks (`load_known_segfaults(folder)`, the packaged ledger first, then `active` and the expiry
warnings for the case's backend, torch and hardware key on the case's date). It records
`error`: the text show-skips prints after `Exit: ` (`Invalid known segfault ledger: ...`,
the folder written as `<DIR>`), or the project entries' ids and, per check, the active
project ids and the warnings. Standard library and the installed torchcts only; seconds.
"""
import datetime
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    os.environ.setdefault("PYTHONHASHSEED", "0")
    from torchcts.core.known_segfaults import (
        active_known_segfaults,
        expired_known_segfault_warnings,
        load_known_segfaults,
    )

    with open(os.path.join(HERE, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    out = []
    for case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "known_segfaults.json"), "wb") as f:
                f.write(case["text"].encode("utf-8", "surrogateescape"))
            record = {"name": case["name"]}
            try:
                entries = load_known_segfaults(tmp)
            except Exception as exc:  # conftest: `except Exception as exc: pytest.exit(...)`
                record["error"] = f"Invalid known segfault ledger: {exc}".replace(tmp, "<DIR>")
                out.append(record)
                continue
            project = [e for e in entries if e["source_path"].startswith(tmp)]
            record["ids"] = [e["id"] for e in project]
            checks = []
            for check in case.get("checks", []):
                active = active_known_segfaults(
                    project, backend=check["backend"], torch_version=check["torch"], hardware_key=check["hardware"]
                )
                today = datetime.date.fromisoformat(check["today"])
                checks.append({
                    "active": [e["id"] for e in active],
                    "warnings": expired_known_segfault_warnings(active, today=today),
                })
            record["checks"] = checks
            out.append(record)
    with open(os.path.join(HERE, "expected.json"), "w", encoding="utf-8") as f:
        from importlib.metadata import version
        json.dump({"recorded_with": {"python": sys.version.split()[0], "torchcts": version("torchcts")}, "cases": out}, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
