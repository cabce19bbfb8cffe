#!/usr/bin/env bash
# Two binaries of torchcts-lsp measured alternately in one run on the same machine (issue 23's
# before/after): whole-process skips and analyze (tools/bench_cli.py alternates per run), then
# keystroke to diagnostics and inlay hints (tools/bench_keystrokes.py), then start-up and
# resident memory (tools/bench_startup.py), each A, B, A, B. Each MANIFEST given after ROUNDS gets
# its own keystroke rounds (issue 30: the 324 KB file of tools/bench_large_manifest.py).
#   tools/bench_ab.sh BEFORE AFTER [ROUNDS [MANIFEST...]]
set -euo pipefail
A=${1:?usage: bench_ab.sh BEFORE AFTER [ROUNDS]}; B=${2:?usage: bench_ab.sh BEFORE AFTER [ROUNDS]}; ROUNDS=${3:-2}
shift $(( $# < 3 ? $# : 3 ))
cd "$(dirname "$0")/.."
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 tools/bench_cli.py -n 30 "skips examples/manifest.py" "$A" "$B"
python3 tools/bench_cli.py -n 30 "analyze examples/manifest.py" "$A" "$B"
for r in $(seq "$ROUNDS"); do
  for bin in "$A" "$B"; do
    echo "== keystrokes, round $r: $bin"; python3 tools/bench_keystrokes.py "$bin"
  done
done
for manifest in "$@"; do
  for r in $(seq "$ROUNDS"); do
    for bin in "$A" "$B"; do
      echo "== keystrokes on $manifest, round $r: $bin"; python3 tools/bench_keystrokes.py "$bin" "$manifest"
    done
  done
done
for r in $(seq "$ROUNDS"); do
  for bin in "$A" "$B"; do
    echo "== start-up and memory, round $r: $bin"; python3 tools/bench_startup.py "$bin"
  done
done
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg)"
