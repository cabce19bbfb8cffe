#!/usr/bin/env bash
# Add the match metadata (what torchcts' known-segfault matchers read of each test) to a
# release already packed in tools/inventory/out, without a full extraction:
#
#     tools/inventory/add_metadata.sh TORCHCTS/TORCH PYTHON [--work DIR]
#
# PYTHON is the Python of an environment with exactly that torchcts and torch (a venv of
# new_release.sh's kind). The release is unpacked, its collection run once with
# `extract_inventory.py --metadata-into` (pytest's collection only: ~15 min on the shared
# 2-core machine), and packed back (`pack_versions.py --keep-packed`): only
# inventory-metadata.json.gz changes. See docs/inventory.md, "Match metadata".
set -euo pipefail
release=${1:?usage: add_metadata.sh TORCHCTS/TORCH PYTHON [--work DIR]}
python=${2:?usage: add_metadata.sh TORCHCTS/TORCH PYTHON [--work DIR]}
work=/tmp/add-metadata-${release//\//-}
if [[ ${3:-} == --work ]]; then work=${4:?--work needs a folder}; fi
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
python3 "$here/pack_versions.py" --unpack "$release" --out "$work/inventory.json.gz"
nice "$python" "$here/extract_inventory.py" --metadata-into "$work/inventory.json.gz" \
    --out "$work/inventory-md.json.gz"
python3 "$here/pack_versions.py" --keep-packed "$work/inventory-md.json.gz"
rm -rf "$work"
