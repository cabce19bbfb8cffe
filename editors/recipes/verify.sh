#!/usr/bin/env bash
# Batch check of the Emacs/Eglot and Vim/ALE recipes (torchcts-eglot.el, torchcts-ale.vim)
# against a torchcts-lsp binary, as documented in docs/editors.md.
#   bash editors/recipes/verify.sh            (installs emacs-nox elpa-eglot vim-ale if missing)
# Server: $TORCHCTS_LSP (relative to the repository root), default target/debug/torchcts-lsp.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SERVER=${TORCHCTS_LSP:-target/debug/torchcts-lsp}
case $SERVER in /*) ;; *) SERVER=$ROOT/$SERVER ;; esac
[ -x "$SERVER" ] || { echo "torchcts-lsp not found at $SERVER"; exit 1; }

need=()
command -v emacs >/dev/null || need+=(emacs-nox)
dpkg -s elpa-eglot >/dev/null 2>&1 || need+=(elpa-eglot)
command -v vim >/dev/null || need+=(vim)
dpkg -s vim-ale >/dev/null 2>&1 || need+=(vim-ale)
if [ ${#need[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}" || exit 1
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The recipes call `torchcts-lsp` from PATH, as a user's setup would.
mkdir -p "$TMP/bin" "$TMP/backend" "$TMP/home"
ln -s "$SERVER" "$TMP/bin/torchcts-lsp"
export PATH=$TMP/bin:$PATH HOME=$TMP/home
write_manifest() {
  cat >"$TMP/backend/manifest.py" <<'PY'
import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True, "generator": True},
    "semantic_level": 2,
}
PY
}

rc=0
echo "=== Emacs + Eglot ($(emacs --version | head -n 1), elpa-eglot $(dpkg-query -W -f='${Version}' elpa-eglot))"
write_manifest
timeout 60 emacs --batch -l "$HERE/torchcts-eglot.el" -l "$HERE/verify-eglot.el" "$TMP/backend/manifest.py" 2>"$TMP/emacs.err" || rc=1
[ $rc -ne 0 ] && tail -n 20 "$TMP/emacs.err"

echo "=== Vim + ALE ($(vim --version | head -n 1 | cut -c1-40), vim-ale $(dpkg-query -W -f='${Version}' vim-ale))"
write_manifest
{ echo "set nocompatible"; echo "filetype plugin indent on"; cat "$HERE/torchcts-ale.vim"; } >"$TMP/vimrc"
# Vim needs a terminal: `script` gives it a pseudo-terminal; the result goes to a file.
ALE_RESULT=$TMP/ale-result.txt TERM=xterm timeout 60 script -qec \
  "vim -N -u '$TMP/vimrc' -i NONE -n -c 'source $HERE/verify-ale.vim' '$TMP/backend/manifest.py'" /dev/null >/dev/null 2>&1 </dev/null
vrc=$?
cat "$TMP/ale-result.txt" 2>/dev/null || echo "not ok - Vim wrote no result (exit $vrc)"
[ $vrc -eq 0 ] || rc=1
echo "recipes: $([ $rc -eq 0 ] && echo 'all passed' || echo 'FAILED')"
exit $rc
