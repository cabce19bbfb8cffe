#!/usr/bin/env bash
# How long the pre-commit hook takes to install from nothing: a fresh pre-commit cache
# (PRE_COMMIT_HOME), no CARGO_TARGET_DIR (the hook's build starts from an empty target/), then
# `pre-commit try-repo REPO torchcts-check` on one manifest in a temporary git repository.
# Prints the wall-clock time and the CPU time (user + sys) of the whole install and first run.
#
#   bash tests/precommit/install_time.sh [REPO]     (REPO: this checkout by default)
#
# Crates already in ~/.cargo/registry and maturin in pip's cache are reused, as on any
# machine that has built Rust before; `pre-commit` itself comes from PRECOMMIT_VENV.
set -euo pipefail
REPO="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
VENV="${PRECOMMIT_VENV:-/tmp/torchcts-precommit-venv}"
if ! "$VENV/bin/pre-commit" --version >/dev/null 2>&1; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q pre-commit
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
unset CARGO_TARGET_DIR CARGO_PROFILE_RELEASE_LTO
export PRE_COMMIT_HOME="$WORK/pre-commit-home"
mkdir -p "$WORK/project" && cd "$WORK/project"
git init -q . && git config user.email ci@example.invalid && git config user.name ci
printf 'manifest = {\n    "manifest_version": 1,\n    "device_name": "cpu",\n    "capabilities": {},\n}\n' > manifest.py
git add -A
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)
start=$(date +%s.%N)
/usr/bin/time -f "cpu: %U s user + %S s sys" -o "$WORK/cpu" \
    "$VENV/bin/pre-commit" try-repo "$REPO" torchcts-check --files manifest.py > "$WORK/log" 2>&1 || {
    cat "$WORK/log"; echo "FAIL: the hook did not install or did not pass" >&2; exit 1; }
end=$(date +%s.%N)
grep -q Passed "$WORK/log" || { cat "$WORK/log"; echo "FAIL: the hook did not run" >&2; exit 1; }
echo "hook installed and passed in $(python3 -c "print(round($end - $start))") s wall; $(cat "$WORK/cpu"); load before: $LOAD_BEFORE"
