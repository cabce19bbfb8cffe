#!/usr/bin/env bash
# The support record in a real browser (issue 26): headless Chromium (Debian's `chromium`,
# installed when missing) opens the page `torchcts-lsp report` writes for a manifest and the
# artifacts of a real torchcts run (tests/fixtures/runs/artifacts/focused) and checks it
# (browser_check.py: chart and matrix there, matrix totals equal to `skips --format json`,
# the filter box, the cell links, no request, no console error). Then the same check must
# fail on a copy of the page that loads an image from the network.
#   bash tests/report/run.sh [--screenshot OUT.png]
# Server: $TORCHCTS_LSP (default target/debug/torchcts-lsp).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${TORCHCTS_LSP:-$ROOT/target/debug/torchcts-lsp}
[ -x "$BIN" ] || { echo "no torchcts-lsp at $BIN (cargo build -p torchcts-lsp)" >&2; exit 1; }
if ! command -v chromium >/dev/null 2>&1; then
    echo "== installing Debian's chromium"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update && apt-get install -y chromium
fi
chromium --version

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp -r "$ROOT/tests/fixtures/runs/artifacts/focused/results" "$WORK/results"
cat >"$WORK/manifest.py" <<'PY'
import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "supported_dtypes": {
        torch.float32: True,
        torch.int64: True,
        torch.bool: True,
        torch.float16: r"^(add|mul)$",
    },
    "semantic_level": 2,
    "capabilities": {"inference": True, "training": False},
    "skip_ops": ["mul"],
    "tolerance_overrides": {"elementwise:torch.float16": {"rtol": 1e-2, "atol": 1e-2}},
}
PY
FLAGS=(--torch 2.12.1 --rooted-at-package)
(cd "$WORK" && "$BIN" report manifest.py "${FLAGS[@]}" -o record.html && "$BIN" skips manifest.py "${FLAGS[@]}" --format json >skips.json)
ls -l "$WORK/record.html"

python3 "$ROOT/tests/report/browser_check.py" "$WORK/record.html" "$WORK/skips.json" "$@"

# The check can fail: a page that asks the network for an image must not pass.
sed 's|<main>|<main><img src="http://192.0.2.1/x.png" alt="">|' "$WORK/record.html" >"$WORK/tampered.html"
if python3 "$ROOT/tests/report/browser_check.py" "$WORK/tampered.html" "$WORK/skips.json" >"$WORK/tampered.out" 2>&1; then
    cat "$WORK/tampered.out"
    echo "the browser check passed a page that requests an image from the network" >&2
    exit 1
fi
grep '^FAIL' "$WORK/tampered.out"
echo "browser check: the record passes, a page with a request fails"
