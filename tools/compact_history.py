"""Rewrites a results folder's `<hardware>_history/` as torchcts stores a completed run
(issue 35): each history file passed through torchcts's own `dumps_result_artifact` (the
compact format, tables chosen by torchcts), its records doubled under other node ids so the
file keeps the plain file's size (3.6 MB from `evidence_bench generate-history`'s 3.7 MB).

    /tmp/tv/bin/python tools/compact_history.py SRC_DIR DST_DIR

Needs the real torchcts (the venv of `TORCHCTS_PYTHON`); writes nothing into SRC_DIR.
"""

import json
import shutil
import sys
from pathlib import Path

from torchcts.core.result_artifacts import dumps_result_artifact


def main(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True, exist_ok=True)
    for entry in sorted(src.iterdir()):
        if entry.is_dir() and entry.name.endswith("_history"):
            out = dst / entry.name
            out.mkdir(exist_ok=True)
            for path in sorted(entry.glob("*.json")):
                payload = json.loads(path.read_text(encoding="utf-8"))
                results = payload["results"]
                doubled = dict(results)
                for node_id, record in results.items():
                    doubled[node_id.replace("::", "::twin_", 1)] = record
                payload["results"] = doubled
                (out / path.name).write_text(dumps_result_artifact(payload), encoding="utf-8")
        elif entry.is_file():
            shutil.copy(entry, dst / entry.name)
    sizes = [p.stat().st_size for p in dst.glob("*_history/*.json")]
    print(f"{dst}: {len(sizes)} compact history files, {min(sizes)}-{max(sizes)} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
