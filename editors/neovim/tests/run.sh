#!/usr/bin/env bash
# Runs the headless Neovim test of the torchcts plugin against a torchcts-lsp binary.
#   editors/neovim/tests/run.sh NVIM SERVER [setup|lazy|native]
# Exit status 0 only when every check passed.
set -u
NVIM=${1:?usage: run.sh NVIM SERVER [setup|lazy|native]}
SERVER=${2:?usage: run.sh NVIM SERVER [setup|lazy|native]}
MODE=${3:-setup}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PLUGIN=$(dirname "$HERE")

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Keep Neovim's state (LSP log, shada) out of the user's home.
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_STATE_HOME=$TMP/state XDG_CACHE_HOME=$TMP/cache
export TORCHCTS_TEST_SERVER=$SERVER TORCHCTS_TEST_MODE=$MODE TORCHCTS_TEST_TMP=$TMP/work
unset TORCHCTS_LSP

timeout 150 "$NVIM" --headless -u NONE -i NONE -n \
  --cmd "set rtp^=$PLUGIN" \
  -c "luafile $HERE/torchcts_spec.lua" </dev/null
rc=$?
if [ $rc -eq 124 ]; then echo "not ok - $NVIM did not finish within 150 s"; fi
if [ $rc -ne 0 ] && [ -s "$XDG_STATE_HOME/nvim/lsp.log" ]; then
  echo "# last lines of Neovim's lsp.log:"; tail -n 20 "$XDG_STATE_HOME/nvim/lsp.log" | sed 's/^/#   /'
fi
if [ $rc -ne 0 ] && [ -s "$XDG_CACHE_HOME/nvim/lsp.log" ]; then
  echo "# last lines of Neovim's lsp.log:"; tail -n 20 "$XDG_CACHE_HOME/nvim/lsp.log" | sed 's/^/#   /'
fi
exit $rc
