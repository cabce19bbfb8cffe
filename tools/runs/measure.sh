#!/usr/bin/env bash
# Times a focused run (node ids, as the runner builds it) against the same selection through a
# plain `torchcts run -k ...` (which collects every suite first), in one session.
#
# Usage: tools/runs/measure.sh /path/to/venv/bin/python [REPEATS]
# Prints one line per run and the command lines used; results go to a temporary folder.
set -euo pipefail
PY=${1:?usage: measure.sh PYTHON [REPEATS]}
REPEATS=${2:-2}
PKG=$("$PY" -c 'import importlib.util, os; print(os.path.abspath(list(importlib.util.find_spec("torchcts").submodule_search_locations)[0]))')
WORK=$(mktemp -d /tmp/torchcts-measure-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
sed -e 's/"device_name": "auto"/"device_name": "cpu"/' "$PKG/templates/manifest.minimal.py" > "$WORK/manifest.py"
cd "$WORK"
export PYTHONUNBUFFERED=1 TORCHCTS_NON_INTERACTIVE=1

NODE="opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]"
KEYWORD="test_op_forward and clean-add-torch.float32"
focused=("$PY" -m torchcts run --device=cpu --non-interactive --results-dir="$WORK/results-focused"
         --rootdir="$PKG" --confcutdir="$(dirname "$PKG")" -pno:cacheprovider --color=no -v -rfE "$PKG/$NODE")
plain=("$PY" -m torchcts run --device cpu --non-interactive --results-dir "$WORK/results-plain" -k "$KEYWORD")

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $("$PY" -c 'import torch, importlib.metadata as m; print("torch", torch.__version__, "torchcts", m.version("torchcts"))')"
echo "manifest: torchcts templates/manifest.minimal.py with device_name cpu (semantic_level 2)"
echo "focused: ${focused[*]}"
echo "plain:   ${plain[*]}"

time_it() {
    local label=$1; shift
    local start end rc=0
    start=$(date +%s.%N)
    "$@" > "$WORK/$label.out" 2>&1 || rc=$?
    end=$(date +%s.%N)
    local summary
    summary=$(grep -E '^=+ .*(passed|failed|error|no tests ran).* in ' "$WORK/$label.out" | tail -1 | tr -d '=' | sed 's/^ *//; s/ *$//')
    local collected
    collected=$(grep -Eo 'collected [0-9]+ items?( / [0-9]+ deselected)?( / [0-9]+ selected)?' "$WORK/$label.out" | tail -1 || true)
    printf '%-8s %7.1f s  exit %d  [%s] [%s]\n' "$label" "$(echo "$end - $start" | bc)" "$rc" "$collected" "$summary"
}

for i in $(seq "$REPEATS"); do
    time_it focused "${focused[@]}"
    time_it plain "${plain[@]}"
done
