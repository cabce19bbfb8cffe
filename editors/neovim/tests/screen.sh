#!/usr/bin/env bash
# What a person sees after opening the example manifest in Neovim with the plugin: Neovim runs
# in a tmux pane (200x60) with a user's minimal config (the plugin's setup(), Python's ftplugin,
# diagnostics as virtual text, which 0.11 no longer shows by default), opens
# examples/manifest.py, waits for the server's diagnostics and code lens, searches
# "tolerance_overrides" and presses K. The pane (`tmux capture-pane -p`) is printed to the log,
# and must show a diagnostic's text, a lens and the hover: text only the server writes (none of
# it is in the manifest), so a missing or wrong server fails. The Python set has no torch: then
# Neovim again, in an 80x24 pane, until the server's warning that no torch was found is on
# screen, whole, on one line. No "Press ENTER" prompt may appear in either pane (Neovim 0.11's
# own showMessage handler prompts for every message; a message wider than the pane prompts on
# every version).
#   editors/neovim/tests/screen.sh NVIM SERVER
# Needs tmux (Debian: apt-get install tmux). Exit status 0 only when all three are on screen.
set -u
NVIM=${1:?usage: screen.sh NVIM SERVER}
SERVER=${2:?usage: screen.sh NVIM SERVER}
# Neovim starts in the manifest's project: the server's path must not be relative.
case $SERVER in */*) SERVER=$(cd "$(dirname "$SERVER")" && pwd)/$(basename "$SERVER") ;; *) SERVER=$(command -v "$SERVER") ;; esac
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PLUGIN=$(dirname "$HERE")
ROOT=$(cd "$PLUGIN/../.." && pwd)

command -v tmux >/dev/null || { echo "not ok - tmux not found (apt-get install tmux)"; exit 1; }
[ -x "$NVIM" ] || { echo "not ok - no Neovim at '$NVIM'"; exit 1; }

TMP=$(mktemp -d)
SOCKET=$TMP/tmux.socket
# Neovim quits (and stops the server) before its pane or folders go.
quit_nvim() {
  tmux -S "$SOCKET" has-session -t screen 2>/dev/null || return 0
  tmux -S "$SOCKET" send-keys -t screen Escape ':qa!' Enter 2>/dev/null
  for _ in $(seq 1 30); do
    tmux -S "$SOCKET" has-session -t screen 2>/dev/null || return 0
    sleep 0.1
  done
  tmux -S "$SOCKET" kill-session -t screen 2>/dev/null
}
cleanup() {
  quit_nvim
  tmux -S "$SOCKET" kill-server 2>/dev/null
  rm -rf "$TMP"
}
trap cleanup EXIT

# The manifest in a project of its own (the .git folder makes it the root).
mkdir -p "$TMP/work/backend" "$TMP/work/.git"
cp "$ROOT/examples/manifest.py" "$TMP/work/backend/manifest.py"
cat >"$TMP/init.lua" <<EOF
vim.opt.rtp:prepend([[$PLUGIN]])
vim.cmd("filetype plugin indent on")
vim.cmd("syntax on")
vim.diagnostic.config({ virtual_text = true })
-- A Python with no torch, whatever this machine's python3 has.
require("torchcts").setup({ cmd = { [[$SERVER]] }, settings = { python = { interpreter = [[$TMP/no-venv/bin/python]] } } })
EOF
# Neovim's state, and tmux's own, away from the user's.
export XDG_CONFIG_HOME=$TMP/config XDG_DATA_HOME=$TMP/data XDG_STATE_HOME=$TMP/state XDG_CACHE_HOME=$TMP/cache
unset TORCHCTS_LSP TMUX VIRTUAL_ENV TORCHCTS_LSP_PYTHON PYTHONPATH

screen() { tmux -S "$SOCKET" capture-pane -p -t screen 2>/dev/null; }
# A hit-enter prompt fails the test: logged, then answered with Enter as a person would, so
# that the other checks still run.
PROMPT="Press ENTER or type command to continue"
PROMPTS=0
answer_prompt() {
  local shot
  shot=$(screen)
  grep -qF -- "$PROMPT" <<<"$shot" || return 0
  PROMPTS=$((PROMPTS + 1))
  echo "# Neovim shows a hit-enter prompt; its last lines:"
  grep -v '^~\?$' <<<"$shot" | tail -n 4 | sed 's/^/#   /'
  tmux -S "$SOCKET" send-keys -t screen Enter
}
# wait_for TEXT SECONDS: until TEXT is on screen; status 1 after SECONDS.
wait_for() {
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    answer_prompt
    screen | grep -qF -- "$1" && return 0
    sleep 0.3
  done
  return 1
}

DIAGNOSTIC="'generator' is a stale capability name"
LENS="▶ Run level 4 on mps"
HOVER="Reviewed numerical tolerance differences"

version=$("$NVIM" --version | head -n 1)
# open_manifest COLUMNS LINES: Neovim on the manifest in a tmux pane of that size.
open_manifest() {
  t0=$SECONDS
  tmux -S "$SOCKET" -f /dev/null new-session -d -x "$1" -y "$2" -s screen -c "$TMP/work" \
    "$NVIM -u $TMP/init.lua -i NONE -n backend/manifest.py" || { echo "not ok - tmux did not start"; exit 1; }
  tmux -S "$SOCKET" set-option -t screen -g status off >/dev/null
}
# print_pane COLUMNS TITLE TEXT: the pane in the log, framed.
print_pane() {
  echo "# $version, $2 (tmux capture-pane -p):"
  echo "+$(printf '%.0s-' $(seq 1 "$1"))+"
  while IFS= read -r line; do printf '|%s\n' "$line"; done <<<"$3"
  echo "+$(printf '%.0s-' $(seq 1 "$1"))+"
}
passed=0
failed=0
# verdict STATUS TEXT-IF-OK TEXT-IF-NOT: one check's line, counted.
verdict() {
  if [ "$1" -eq 0 ]; then
    passed=$((passed + 1))
    echo "ok - $2"
  else
    failed=$((failed + 1))
    echo "not ok - $3"
  fi
}

open_manifest 200 60
wait_for "$DIAGNOSTIC" 40 && echo "# diagnostics on screen after $((SECONDS - t0)) s" ||
  echo "# no diagnostic after $((SECONDS - t0)) s"
wait_for "$LENS" 20 && echo "# code lens on screen after $((SECONDS - t0)) s" || echo "# no code lens after $((SECONDS - t0)) s"
tmux -S "$SOCKET" send-keys -t screen '/"tolerance_overrides' Enter
sleep 0.3
tmux -S "$SOCKET" send-keys -t screen K
wait_for "$HOVER" 20 && echo "# hover on screen after $((SECONDS - t0)) s" || echo "# no hover after $((SECONDS - t0)) s"
sleep 0.5 # let the float finish drawing
shot=$(screen)
print_pane 200 "examples/manifest.py, after K on \"tolerance_overrides\", 200x60" "$shot"
for what in "diagnostic:$DIAGNOSTIC" "code lens:$LENS" "hover:$HOVER"; do
  name=${what%%:*}
  text=${what#*:}
  grep -qF -- "$text" <<<"$shot"
  verdict $? "$name on screen: $text" "$name not on screen: $text"
done

# The warning that no torch was found, in a pane as wide as a small terminal.
quit_nvim
NO_TORCH="no torch found"
open_manifest 80 24
wait_for "$NO_TORCH" 30 && echo "# the no-torch warning on screen after $((SECONDS - t0)) s" ||
  echo "# no no-torch warning after $((SECONDS - t0)) s"
sleep 1 # time for a prompt to follow it
answer_prompt
narrow=$(screen)
print_pane 80 "the same manifest, 80x24" "$narrow"
warning=$(grep -F -- "$NO_TORCH" <<<"$narrow" | tail -n 1)
# Whole: not cut by the plugin ("...") nor wrapped by Neovim (the pointer to the log ends it).
[ -n "$warning" ] && ! grep -qF -- "..." <<<"$warning" && grep -q "(see the log)$" <<<"$warning"
verdict $? "the no-torch warning whole on one line of 80 columns: $warning" \
  "the no-torch warning not whole on one line of 80 columns: '${warning}'"
[ "$PROMPTS" -eq 0 ]
verdict $? "no hit-enter prompt" "$PROMPTS hit-enter prompt(s): \"$PROMPT\""
echo "neovim screen ($version): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
