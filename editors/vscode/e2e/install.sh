#!/usr/bin/env bash
# Installs what the real-VS-Code end-to-end check needs, with the workarounds this
# machine (no network but the package registries, npm that blocks dependency install
# scripts, no downloads from GitHub) needs:
#   - Debian packages: chromium (the browser), ripgrep (replaces @vscode/ripgrep's download),
#     libkrb5-dev (headers for the kerberos module), build tools for node-gyp.
#   - code-server 4.100.3 from npm into editors/vscode/e2e/work/ (git-ignored), with its
#     postinstall done by hand: the Node major check passes on Node 20 but wants
#     --unsafe-perm as root, and its nested `npm install` would run @vscode/ripgrep's
#     download; so we install with --ignore-scripts, link Debian's rg where
#     @vscode/ripgrep expects its binary, and build the native modules with the node-gyp
#     that ships inside npm (no `npx node-gyp` prompt, headers from nodedir=/usr).
#   - playwright-core (no browser download: it drives Debian's /usr/bin/chromium).
# Idempotent: a second run only checks.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=$HERE/work
CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.65.1
NODEDIR=${NODEDIR:-/usr}

log() { echo "[e2e install] $*"; }

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v rg >/dev/null || need_apt+=(ripgrep)
[ -f /usr/include/gssapi/gssapi.h ] || need_apt+=(libkrb5-dev)
command -v g++ >/dev/null || need_apt+=(g++)
command -v make >/dev/null || need_apt+=(make)
command -v python3 >/dev/null || need_apt+=(python3)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y "${need_apt[@]}"
fi

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" != 20 ]; then
  echo "code-server $CODE_SERVER_VERSION needs Node.js 20; this is $(node --version)" >&2
  exit 1
fi
if [ ! -f "$NODEDIR/include/node/node.h" ]; then
  echo "Node headers not found under $NODEDIR/include/node (set NODEDIR); node-gyp would try to download them" >&2
  exit 1
fi

mkdir -p "$WORK"
cd "$WORK"
[ -f package.json ] || echo '{ "name": "torchcts-e2e-work", "private": true }' >package.json

CS=$WORK/node_modules/code-server
if [ -f "$CS/.torchcts-installed" ] && [ -d node_modules/playwright-core ]; then
  log "code-server $CODE_SERVER_VERSION and playwright-core already installed in $WORK"
  exit 0
fi

log "npm install code-server@$CODE_SERVER_VERSION playwright-core@$PLAYWRIGHT_VERSION (scripts off)"
npm install --no-audit --no-fund --ignore-scripts --save-exact \
  "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION"

NODE_GYP=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")/node_modules/node-gyp/bin/node-gyp.js
[ -f "$NODE_GYP" ] || { echo "node-gyp not found at $NODE_GYP" >&2; exit 1; }
export npm_config_nodedir=$NODEDIR
gyp_build() { # gyp_build DIR: builds a native module in place, from source
  log "building the native module ${1#"$WORK"/}"
  local cmd=(node "$NODE_GYP" rebuild --nodedir="$NODEDIR" -j 2)
  # node-pre-gyp modules (their "binary" field) would download a prebuilt binary from
  # GitHub; build from source through node-pre-gyp, which passes module_name/module_path.
  if node -e 'process.exit((require(process.argv[1]).binary || {}).module_name ? 0 : 1)' "$1/package.json"; then
    cmd=(node "$WORK/node_modules/@mapbox/node-pre-gyp/bin/node-pre-gyp" rebuild --build-from-source)
  fi
  (cd "$1" && "${cmd[@]}" >/tmp/torchcts-e2e-gyp.log 2>&1) || {
    tail -n 30 /tmp/torchcts-e2e-gyp.log >&2
    return 1
  }
}

# code-server's own native dependency (argon2): it ships prebuilt binaries; build if not.
if ! node -e 'require(process.argv[1])' "$WORK/node_modules/argon2" 2>/dev/null; then
  gyp_build "$WORK/node_modules/argon2"
fi

log "installing VS Code's dependencies (lib/vscode), scripts off"
(cd "$CS/lib/vscode" && npm install --no-audit --no-fund --omit=dev --ignore-scripts)

VS=$CS/lib/vscode
# @vscode/ripgrep downloads rg from GitHub in its postinstall: use Debian's instead.
mkdir -p "$VS/node_modules/@vscode/ripgrep/bin"
ln -sf "$(command -v rg)" "$VS/node_modules/@vscode/ripgrep/bin/rg"

# Native modules VS Code's server loads on Linux (the Windows-only ones are skipped).
for m in node-pty @vscode/spdlog native-watchdog kerberos @vscode/deviceid; do
  d=$VS/node_modules/$m
  [ -f "$d/binding.gyp" ] || continue
  gyp_build "$d"
done

# The rest of code-server's postinstall.sh (vscode_install), done by hand.
(cd "$VS" && rm -rf node_modules.asar && ln -s node_modules node_modules.asar)
(cd "$VS/bin/remote-cli" && ln -sf code-linux.sh code-server)
(cd "$VS/bin/helpers" && ln -sf browser-linux.sh browser.sh)
log "installing the built-in extensions' shared dependencies"
(cd "$VS/extensions" && npm install --no-audit --no-fund --omit=dev --ignore-scripts && node ./postinstall.mjs)

"$CS/out/node/entry.js" --version >/dev/null 2>&1 || node "$CS/out/node/entry.js" --version
touch "$CS/.torchcts-installed"
log "done: $(node "$CS/out/node/entry.js" --version | head -n 1)"
