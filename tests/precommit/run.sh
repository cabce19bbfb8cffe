#!/usr/bin/env bash
# The pre-commit hook, for real: the `pre-commit` from PyPI (in a venv) runs this repository's
# `torchcts-check` hook with `try-repo` (which installs the package from this working tree,
# uncommitted changes included) in a temporary git repository: a broken manifest must fail
# the hook, a good one pass, and a file that is not a manifest must not reach it.
#
#   bash tests/precommit/run.sh
#
# Installing the hook builds the package with maturin (a release build: minutes). Set
# CARGO_TARGET_DIR to reuse a build folder between runs (the default below does).
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
VENV="${PRECOMMIT_VENV:-/tmp/torchcts-precommit-venv}"
if ! "$VENV/bin/pre-commit" --version >/dev/null 2>&1; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q pre-commit
fi
"$VENV/bin/pre-commit" --version

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export PRE_COMMIT_HOME="$WORK/pre-commit-home"
# The hook's build: thin LTO costs minutes here and nothing the test looks at.
export CARGO_PROFILE_RELEASE_LTO="${CARGO_PROFILE_RELEASE_LTO:-false}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/tmp/torchcts-precommit-target}"

PROJECT="$WORK/project"
mkdir -p "$PROJECT/good" "$PROJECT/bad" "$PROJECT/.torchcts-lsp/scratch"
cd "$PROJECT"
git init -q .
git config user.email ci@example.invalid
git config user.name ci
cat > good/manifest.py <<'PY'
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {},
}
PY
cat > bad/manifest.py <<'PY'
manifest = {
    "manifest_version": 1,
    "device_name": 3,
    "capabilities": {"warp_drive": True},
}
PY
# Not manifests (the hook's `files` and `exclude`): never passed to the hook.
cp bad/manifest.py .torchcts-lsp/scratch/manifest.py
cp bad/manifest.py bad/other.py
git add -A

echo "== pre-commit try-repo: the broken manifest fails the hook"
set +e
"$VENV/bin/pre-commit" try-repo "$REPO" torchcts-check --files bad/manifest.py > "$WORK/bad.log" 2>&1
bad=$?
set -e
cat "$WORK/bad.log"
if [ "$bad" -eq 0 ] || ! grep -q "Error: 'device_name' must be a string" "$WORK/bad.log"; then
    echo "FAIL: the hook passed a broken manifest (exit $bad)" >&2
    exit 1
fi

echo "== pre-commit try-repo: the good manifest passes; the others are not manifests"
"$VENV/bin/pre-commit" try-repo "$REPO" torchcts-check --files good/manifest.py bad/other.py .torchcts-lsp/scratch/manifest.py > "$WORK/good.log" 2>&1 || {
    cat "$WORK/good.log"
    echo "FAIL: the hook failed a good manifest (or ran on a file that is not one)" >&2
    exit 1
}
cat "$WORK/good.log"
grep -q "Passed" "$WORK/good.log" || { echo "FAIL: the hook did not run" >&2; exit 1; }

echo "== pre-commit on every file of the repository: fails on bad/manifest.py only"
set +e
"$VENV/bin/pre-commit" try-repo "$REPO" torchcts-check --all-files > "$WORK/all.log" 2>&1
all=$?
set -e
cat "$WORK/all.log"
if [ "$all" -eq 0 ] || ! grep -q "== bad/manifest.py" "$WORK/all.log" || grep -q "scratch" "$WORK/all.log"; then
    echo "FAIL: --all-files (exit $all) did not check exactly the two manifests" >&2
    exit 1
fi
echo "1 passed, 0 failed: pre-commit hook torchcts-check"
