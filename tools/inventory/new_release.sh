#!/usr/bin/env bash
# Supports a torchcts release: one command, then a review of what it prints.
#
#   tools/inventory/new_release.sh VERSION [--torch "2.12.1 2.9.1 ..."] [--work DIR] [--python PY]
#                                          [--venv-for TORCH=DIR] [--skip-corpus] [--keep-venvs]
#
# For each torch release (newest first; default: every release 2.7.0-2.12.1), one at a
# time so that one ~5 GB venv exists at a time:
#   1. creates a venv with torch==T and torchcts==VERSION (or uses --venv-for T=DIR),
#   2. extracts the suite inventory (tools/inventory/extract_inventory.py, seeded with the
#      committed base's strings) into DIR/inventory-torchcts-VERSION-torch-T.json.gz
#      (an existing file there is kept: the command resumes where it stopped),
#   3. records one real `torchcts show-skips` for the parity corpus (the regex_dtypes
#      manifest on cpu: case regex_dtypes_torchctsV_torchT, added to cases.json),
#   4. regenerates the schema with the newest torch release (server/core/data/schema.json
#      when VERSION is the newest torchcts embedded, else compared with it and reported),
#   5. deletes the venv (unless --keep-venvs or --venv-for).
# Then packs every extraction with the committed releases (pack_versions.py --keep-packed)
# and prints what changed. Times are logged per step in DIR/times.tsv.
#
# What it leaves to the review: the torch range VERSION supports and the default torchcts
# (`SUPPORTED` and `EMBEDDED_TORCHCTS` in server/accounting/src/inventory/catalogue.rs), the
# parity test (`cargo test -p accounting --test skips_parity`) and docs/inventory.md.
set -euo pipefail

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 1 && $1 != -* ]] || usage
VERSION=$1; shift
TORCH_RELEASES="2.12.1 2.12.0 2.11.0 2.10.0 2.9.1 2.9.0 2.8.0 2.7.1 2.7.0"
NEWEST_TORCH=${TORCH_RELEASES%% *}   # the schema comes from this one
WORK=/tmp/new-release-$VERSION
PY=${PYTHON:-python3}
CORPUS=1
KEEP_VENVS=0
declare -A VENV_FOR=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --torch) TORCH_RELEASES=$2; shift 2 ;;
        --work) WORK=$2; shift 2 ;;
        --python) PY=$2; shift 2 ;;
        --venv-for) VENV_FOR[${2%%=*}]=${2#*=}; shift 2 ;;
        --skip-corpus) CORPUS=0; shift ;;
        --keep-venvs) KEEP_VENVS=1; shift ;;
        *) usage ;;
    esac
done

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
mkdir -p "$WORK"
TIMES=$WORK/times.tsv
[[ -f $TIMES ]] || printf 'step\ttorch\tseconds\n' > "$TIMES"
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
timed() { # timed STEP TORCH CMD...: runs CMD, appends its wall time to times.tsv
    local step=$1 torch=$2 start=$SECONDS; shift 2
    "$@"
    printf '%s\t%s\t%s\n' "$step" "$torch" "$((SECONDS - start))" >> "$TIMES"
}
BASE=tools/inventory/out/inventory-base.json.gz
NEWEST_CTS=$(sed -n 's/^pub const EMBEDDED_TORCHCTS: &str = "\(.*\)";/\1/p' server/accounting/src/inventory/catalogue.rs)
# The newest torchcts: VERSION when it is at least the embedded default.
IS_NEWEST=$("$PY" -c 'import sys; k=lambda v: tuple(int(p) for p in v.split("."));
print(int(k(sys.argv[1]) >= k(sys.argv[2])))' "$VERSION" "$NEWEST_CTS")
cp "$BASE" "$WORK/seed-strings.json.gz"   # the seed stays the same while packing rewrites the base
git diff --quiet -- tools/inventory/out tests/parity/skips server/core/data || log "note: the tree already has changes there"

add_case() { # add_case NAME TORCH: a regex_dtypes case for VERSION with torch TORCH
    "$PY" - "$1" "$VERSION" "$2" <<'EOF'
import json, os, shutil, sys
name, cts, torch = sys.argv[1:]
path = "tests/parity/skips/cases.json"
text = open(path, encoding="utf-8").read()
if f'"name": "{name}"' in text:
    sys.exit(0)
case = {"name": name, "torchcts": cts, "torch": torch, "args": ["--device", "cpu"],
        "description": f"the regex_dtypes manifest on cpu (level 6 from the manifest) with torchcts {cts} and torch {torch}"}
head, tail = text.rstrip().rsplit("]", 1)
text = head.rstrip() + ",\n    " + json.dumps(case, ensure_ascii=False) + "\n  ]" + tail + "\n"
json.loads(text)
open(path, "w", encoding="utf-8").write(text)
os.makedirs(f"tests/parity/skips/cases/{name}", exist_ok=True)
shutil.copy("tests/parity/skips/cases/regex_dtypes/manifest.py", f"tests/parity/skips/cases/{name}/manifest.py")
EOF
}

for T in $TORCH_RELEASES; do
    OUT=$WORK/inventory-torchcts-$VERSION-torch-$T.json.gz
    CASE=regex_dtypes_torchcts${VERSION//./}_torch${T//./}
    need_corpus=$CORPUS
    [[ $CORPUS == 1 && -f tests/parity/skips/cases/$CASE/expected.json.gz ]] && need_corpus=0
    if [[ -f $OUT && $need_corpus == 0 && ( $T != "$NEWEST_TORCH" || -f $WORK/schema.json ) ]]; then
        log "torch $T: done before"; continue
    fi
    VENV=${VENV_FOR[$T]:-$WORK/venv-$T}
    if [[ ! -x $VENV/bin/python ]]; then
        log "torch $T: creating $VENV"
        timed venv "$T" bash -c "'$PY' -m venv '$VENV' && '$VENV/bin/pip' install -q 'torch==$T' 'torchcts==$VERSION'"
    fi
    got=$("$VENV/bin/python" -c 'from importlib.metadata import version as v; print(v("torchcts"), v("torch").split("+")[0])')
    [[ $got == "$VERSION $T" ]] || { log "torch $T: $VENV has torchcts/torch $got"; exit 1; }
    if [[ ! -f $OUT ]]; then
        log "torch $T: extracting (30-60 min)"
        timed extract "$T" nice "$VENV/bin/python" tools/inventory/extract_inventory.py \
            --strings-from "$WORK/seed-strings.json.gz" --out "$WORK/partial-$T.json.gz"  # .json.gz: gzip
        mv "$WORK/partial-$T.json.gz" "$OUT"
    fi
    if [[ $need_corpus == 1 ]]; then
        log "torch $T: recording show-skips for $CASE (minutes)"
        add_case "$CASE" "$T"
        timed show-skips "$T" "$PY" tests/parity/skips/regenerate.py --torchcts-python "$VENV/bin/python" \
            --python-for "$VERSION/$T=$VENV/bin/python" --case "$CASE"
    fi
    if [[ $T == "$NEWEST_TORCH" && ! -f $WORK/schema.json ]]; then
        "$VENV/bin/python" tools/gen_schema.py > "$WORK/schema.json"
        if [[ $IS_NEWEST == 1 ]]; then
            cp "$WORK/schema.json" server/core/data/schema.json
        elif cmp -s "$WORK/schema.json" server/core/data/schema.json; then
            log "schema of torchcts $VERSION: same as the committed one (torchcts $NEWEST_CTS)"
        else
            log "schema of torchcts $VERSION differs from the committed one (torchcts $NEWEST_CTS), kept:"
            diff <("$PY" -m json.tool server/core/data/schema.json) <("$PY" -m json.tool "$WORK/schema.json") | head -40 >&2 || true
        fi
    fi
    if [[ $KEEP_VENVS == 0 && -z ${VENV_FOR[$T]:-} ]]; then
        rm -rf "$VENV"
    fi
done

log "packing"
timed pack all "$PY" tools/inventory/pack_versions.py --keep-packed "$WORK"/inventory-torchcts-"$VERSION"-torch-*.json.gz

echo
echo "== what changed"
changes=$(git status --short -- tools/inventory/out tests/parity/skips server/core/data)
echo "${changes:-(nothing: the committed files already hold these releases)}"
git diff --stat -- tools/inventory/out tests/parity/skips server/core/data
ls -l tools/inventory/out
echo
echo "== times (seconds) in $TIMES"
column -t "$TIMES" 2>/dev/null || cat "$TIMES"
echo
echo "== to review: SUPPORTED / EMBEDDED_TORCHCTS in server/accounting/src/inventory/catalogue.rs,"
echo "   then: cargo test -p accounting --test skips_parity && cargo test --workspace --locked"
