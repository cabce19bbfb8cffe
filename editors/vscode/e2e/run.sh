#!/usr/bin/env bash
# The real-VS-Code end-to-end check: code-server 4.100.3 with the extension installed from
# its .vsix (torchcts-lsp bundled inside), driven by headless Debian Chromium.
#   bash editors/vscode/e2e/run.sh
# The .vsix: $TORCHCTS_VSIX (editors/ci.sh passes its linux-x64 package with the release
# server inside); else one packaged here with $TORCHCTS_LSP (relative to the repository
# root, default target/debug/torchcts-lsp).
# Screenshots go to docs/images/ (E2E_SHOTS overrides). Not part of editors/ci.sh: the
# first run installs code-server (about 2 minutes on 2 cores); see docs/editors.md.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
EXT=$(dirname "$HERE")
ROOT=$(cd "$EXT/../.." && pwd)
SERVER=${TORCHCTS_LSP:-target/debug/torchcts-lsp}
case $SERVER in /*) ;; *) SERVER=$ROOT/$SERVER ;; esac
SHOTS=${E2E_SHOTS:-$ROOT/docs/images}
T0=$SECONDS
log() { echo "[e2e $((SECONDS - T0))s] $*"; }

[ -x "$SERVER" ] || { echo "torchcts-lsp not found at $SERVER (build it or set TORCHCTS_LSP)" >&2; exit 1; }

log "install (code-server, playwright-core, Debian packages)"
bash "$HERE/install.sh"
CODE_SERVER=(node "$HERE/work/node_modules/code-server/out/node/entry.js")

cd "$EXT"
if [ -n "${TORCHCTS_VSIX:-}" ]; then
  # editors/ci.sh passes the linux-x64 .vsix it packaged with the release server inside.
  VSIX=$TORCHCTS_VSIX
  log "install the packaged $VSIX"
  [ -f "$VSIX" ] || { echo "TORCHCTS_VSIX=$VSIX: no such file" >&2; exit 1; }
else
  log "package a linux-x64 .vsix with $SERVER bundled (server/torchcts-lsp)"
  [ -d node_modules/vscode-languageclient ] || npm ci --no-audit --no-fund
  rm -rf server && mkdir server && cp "$SERVER" server/torchcts-lsp && chmod 755 server/torchcts-lsp
  VSIX=$HERE/work/torchcts-e2e.vsix
  npx --no-install vsce package --no-dependencies --allow-missing-repository --target linux-x64 -o "$VSIX" >/dev/null
  rm -rf server
fi
ls -l "$VSIX"

RUN=$(mktemp -d /tmp/torchcts-e2e-XXXXXX)
CS_PID=""
cleanup() {
  if [ -n "$CS_PID" ]; then kill "$CS_PID" 2>/dev/null || true; wait "$CS_PID" 2>/dev/null || true; fi
  rm -rf "$RUN"
}
trap cleanup EXIT

mkdir -p "$RUN/user/User" "$RUN/extensions" "$RUN/workspace/backend" "$SHOTS"
cat >"$RUN/workspace/backend/manifest.py" <<'PY'
import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True, "generator": True},
    "semantic_level": 2,
}
PY
cat >"$RUN/user/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoUpdate": false,
  "extensions.autoCheckUpdates": false,
  "update.mode": "none",
  "editor.hover.delay": 200,
  "editor.minimap.enabled": false,
  "window.commandCenter": false,
  "chat.commandCenter.enabled": false,
  "git.enabled": false,
  "git.openRepositoryInParentFolders": "never"
}
JSON

log "install the .vsix into code-server"
"${CODE_SERVER[@]}" --user-data-dir "$RUN/user" --extensions-dir "$RUN/extensions" --install-extension "$VSIX"
ls -l "$RUN"/extensions/*/server/torchcts-lsp

PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
log "start code-server on 127.0.0.1:$PORT"
"${CODE_SERVER[@]}" --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry --disable-update-check \
  --disable-workspace-trust --disable-getting-started-override \
  --user-data-dir "$RUN/user" --extensions-dir "$RUN/extensions" "$RUN/workspace" >"$RUN/code-server.log" 2>&1 &
CS_PID=$!
for _ in $(seq 1 120); do
  grep -q "HTTP server listening" "$RUN/code-server.log" && break
  kill -0 "$CS_PID" 2>/dev/null || { cat "$RUN/code-server.log"; echo "code-server exited" >&2; exit 1; }
  sleep 0.5
done
grep "HTTP server listening" "$RUN/code-server.log"

log "drive it with headless Chromium"
rc=0
E2E_FAILURE_DIR=$HERE/work node "$HERE/e2e.mjs" "http://127.0.0.1:$PORT" "$RUN/workspace" "$SHOTS" || rc=$?
if [ $rc -ne 0 ]; then
  echo "# code-server log (tail):"; tail -n 40 "$RUN/code-server.log" | sed 's/^/#   /'
  for f in "$RUN"/user/logs/*/exthost*/*TorchCTS*.log "$RUN"/user/logs/*/window*/exthost/*/*TorchCTS*.log; do
    [ -f "$f" ] && { echo "# $f:"; tail -n 20 "$f" | sed 's/^/#   /'; }
  done
fi
log "done (exit $rc)"
exit $rc
