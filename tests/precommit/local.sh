#!/usr/bin/env bash
# The README's `repo: local` pre-commit hook, for real: the YAML block is taken from the
# README as it stands, and the `pre-commit` from PyPI (in a venv) runs it in a temporary git
# repository with an installed torchcts-lsp on PATH (no build): a broken manifest fails the
# hook, a good one passes, files that are not manifests never reach it. Seconds.
#
#   bash tests/precommit/local.sh      (TORCHCTS_LSP_BIN: the binary, default target/debug)
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${TORCHCTS_LSP_BIN:-$REPO/target/debug/torchcts-lsp}"
VENV="${PRECOMMIT_VENV:-/tmp/torchcts-precommit-venv}"
[ -x "$BIN" ] || { echo "no torchcts-lsp at $BIN (cargo build -p torchcts-lsp)" >&2; exit 1; }
if ! "$VENV/bin/pre-commit" --version >/dev/null 2>&1; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q pre-commit
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export PRE_COMMIT_HOME="$WORK/pre-commit-home"
export PATH="$(dirname "$BIN"):$PATH"
PROJECT="$WORK/project"
mkdir -p "$PROJECT/good" "$PROJECT/bad" "$PROJECT/.torchcts-lsp/scratch"
cd "$PROJECT"
git init -q .
git config user.email ci@example.invalid
git config user.name ci
# The README's block, verbatim: the fence that holds `- repo: local`.
python3 - "$REPO/README.md" > .pre-commit-config.yaml <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
at = text.index("  - repo: local\n")
start = text.rindex("```yaml\n", 0, at) + len("```yaml\n")
print(text[start:text.index("```", at)], end="")
PY
cat .pre-commit-config.yaml
printf 'manifest = {\n    "manifest_version": 1,\n    "device_name": "cpu",\n    "capabilities": {},\n}\n' > good/manifest.py
printf 'manifest = {\n    "manifest_version": 1,\n    "device_name": 3,\n    "capabilities": {},\n}\n' > bad/manifest.py
cp bad/manifest.py .torchcts-lsp/scratch/manifest.py
cp bad/manifest.py bad/other.py
git add -A

echo "== the broken manifest fails the hook"
set +e
"$VENV/bin/pre-commit" run --files bad/manifest.py > "$WORK/bad.log" 2>&1
bad=$?
set -e
cat "$WORK/bad.log"
if [ "$bad" -eq 0 ] || ! grep -q "Error: 'device_name' must be a string" "$WORK/bad.log"; then
    echo "FAIL: the local hook passed a broken manifest (exit $bad)" >&2
    exit 1
fi

echo "== the good manifest passes; the others are not manifests"
"$VENV/bin/pre-commit" run --files good/manifest.py bad/other.py .torchcts-lsp/scratch/manifest.py > "$WORK/good.log" 2>&1 || {
    cat "$WORK/good.log"
    echo "FAIL: the local hook failed a good manifest (or ran on a file that is not one)" >&2
    exit 1
}
cat "$WORK/good.log"
grep -q "Passed" "$WORK/good.log" || { echo "FAIL: the hook did not run" >&2; exit 1; }
echo "1 passed, 0 failed: the README's repo: local hook"
