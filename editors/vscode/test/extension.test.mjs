// Loads the bundled extension (dist/extension.js) against a mock `vscode` module and the
// real torchcts-lsp binary: activation, server start, diagnostics arrival, and that
// deactivate sends shutdown and exit (the server process then exits by itself, code 0).
//
// Server: $TORCHCTS_LSP, default <repo>/target/debug/torchcts-lsp.
// Run: node --test test/   (after `node esbuild.mjs`)

import { test, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const Module = require("node:module");
const { createMock } = require("./vscode-mock.cjs");

const here = path.dirname(fileURLToPath(import.meta.url));
const extDir = path.resolve(here, "..");
const repoRoot = path.resolve(extDir, "..", "..");
const bundle = path.join(extDir, "dist", "extension.js");
const serverEnv = process.env.TORCHCTS_LSP || "target/debug/torchcts-lsp";
const server = path.resolve(repoRoot, serverEnv);

const MANIFEST = `import torch
manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "capabilities": {"inference": True, "generator": True},
    "semantic_level": 2,
}
`;

let current; // the mock the next require("vscode") gets
const origLoad = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === "vscode") {
    if (!current) throw new Error("test bug: no vscode mock installed");
    return current.vscode;
  }
  return origLoad.call(this, request, parent, isMain);
};

function loadExtension() {
  delete require.cache[require.resolve(bundle)];
  return require(bundle);
}

function waitFor(what, predicate, ms = 15000) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      let v;
      try {
        v = predicate();
      } catch (e) {
        return reject(e);
      }
      if (v) return resolve(v);
      if (Date.now() - started > ms) return reject(new Error(`timed out after ${ms} ms waiting for ${what}`));
      setTimeout(tick, 25);
    };
    tick();
  });
}

let tmp;
let ext;
beforeEach(() => {
  assert.ok(fs.existsSync(bundle), `${bundle} is missing: run \`node esbuild.mjs\` first`);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "torchcts-vscode-test-"));
  fs.mkdirSync(path.join(tmp, "backend"));
  fs.writeFileSync(path.join(tmp, "backend", "manifest.py"), MANIFEST);
  fs.mkdirSync(path.join(tmp, "ext"));
});
afterEach(async () => {
  if (ext) await ext.deactivate();
  ext = undefined;
  current = undefined;
  fs.rmSync(tmp, { recursive: true, force: true });
});

function serverMustExist() {
  let st;
  try {
    st = fs.statSync(server);
  } catch {
    assert.fail(`torchcts-lsp not found at ${server} (set TORCHCTS_LSP or build it: cargo build -p torchcts-lsp)`);
  }
  assert.ok(st.isFile(), `${server} is not a file`);
}

test("activates, starts torchcts-lsp, receives its diagnostics; deactivate sends shutdown and exit", async () => {
  serverMustExist();
  current = createMock({
    workspaceFolder: tmp,
    config: { "torchcts.server.path": server, "torchcts.trace.server": "verbose", "torchcts.defaultLevel": 3 },
  });
  const manifestPath = path.join(tmp, "backend", "manifest.py");
  current.openDocument(manifestPath);
  ext = loadExtension();
  assert.equal(typeof ext.activate, "function");
  assert.equal(typeof ext.deactivate, "function");

  // Activation.
  const context = current.makeContext(path.join(tmp, "ext"));
  const api = ext.activate(context);
  for (const id of ["torchcts.ui.runAffectedTests", "torchcts.ui.runLevel", "torchcts.ui.cancelRun", "torchcts.ui.showSkips", "torchcts.restartServer"]) {
    assert.ok(current.rec.commands.has(id), `command ${id} registered`);
  }
  const status = current.rec.statusBarItems[0];
  assert.ok(status && status.visible, "status bar item shown");
  await api.ready;
  assert.deepEqual(current.rec.errors, [], "no error shown");

  // Server start.
  const client = api.client();
  assert.ok(client, "a language client exists");
  assert.equal(client.isRunning(), true, "client is running");
  assert.equal(api.serverPath(), server, "server found via the setting");
  assert.equal(client.initializeResult?.serverInfo?.name, "torchcts-lsp");
  const proc = client._serverProcess;
  assert.ok(proc && proc.pid > 0, "server process spawned");
  assert.ok(proc.spawnargs.includes("--stdio"), `server started with --stdio: ${proc.spawnargs.join(" ")}`);
  assert.equal(status.text, "TorchCTS", "status bar shows TorchCTS until the server reports counts");

  // Diagnostics arrival.
  const diags = await waitFor("diagnostics for manifest.py", () => {
    const coll = current.rec.diagnosticCollections.get("torchcts");
    const d = coll && coll.get(current.vscode.Uri.file(manifestPath));
    return d && d.length > 0 ? d : undefined;
  });
  const err = diags.find((d) => d.message === "Unknown capabilities key 'generator'");
  assert.ok(err, `error diagnostic present; got: ${JSON.stringify(diags.map((d) => d.message))}`);
  assert.equal(err.severity, current.vscode.DiagnosticSeverity.Error);
  assert.equal(err.source, "torchcts");
  assert.equal(typeof err.code === "object" ? err.code.value : err.code, "unknown-key");
  assert.deepEqual([err.range.start.line, err.range.start.character, err.range.end.line, err.range.end.character], [4, 40, 4, 51]);
  assert.ok(diags.some((d) => d.severity === current.vscode.DiagnosticSeverity.Warning && /stale/.test(d.message)), "stale-name warning present");

  // The server's settings travel as initializationOptions.
  assert.equal(client.clientOptions.initializationOptions.defaultLevel, 3);

  // Deactivate: shutdown request, exit notification, and the process exits by itself.
  const exited = new Promise((resolve) => proc.once("exit", (code, signal) => resolve({ code, signal })));
  await ext.deactivate();
  ext = undefined;
  const { code, signal } = await Promise.race([
    exited,
    new Promise((_, reject) => setTimeout(() => reject(new Error("server process did not exit within 5 s")), 5000)),
  ]);
  const trace = current.rec.outputChannels.get("TorchCTS Language Server Trace").text;
  assert.match(trace, /Sending request 'shutdown/, "shutdown request sent");
  assert.match(trace, /Received response 'shutdown/, "shutdown answered");
  assert.match(trace, /Sending notification 'exit'/, "exit notification sent");
  assert.equal(signal, null, "server not killed by a signal");
  assert.equal(code, 0, "server exited with code 0");
  assert.equal(client.isRunning(), false);
});

test("shows a clear error when no server binary is found", async () => {
  current = createMock({ workspaceFolder: tmp, config: {} });
  current.openDocument(path.join(tmp, "backend", "manifest.py"));
  const oldPath = process.env.PATH;
  process.env.PATH = path.join(tmp, "empty-bin");
  try {
    ext = loadExtension();
    const api = ext.activate(current.makeContext(path.join(tmp, "ext")));
    await api.ready;
    assert.equal(api.client(), undefined, "no client without a server");
    assert.equal(current.rec.errors.length, 1, "one error message");
    assert.match(current.rec.errors[0], /cannot find the language server torchcts-lsp/);
    assert.match(current.rec.errors[0], /torchcts\.server\.path/);
    assert.match(current.rec.errors[0], /PATH/);
    assert.equal(current.rec.statusBarItems[0].text, "$(error) TorchCTS");
  } finally {
    process.env.PATH = oldPath;
  }
});

test("a server.path setting that is not executable is an error, with no fallback", async () => {
  current = createMock({ workspaceFolder: tmp, config: { "torchcts.server.path": "${workspaceFolder}/nope/torchcts-lsp" } });
  current.openDocument(path.join(tmp, "backend", "manifest.py"));
  ext = loadExtension();
  const api = ext.activate(current.makeContext(path.join(tmp, "ext")));
  await api.ready;
  assert.equal(api.client(), undefined);
  assert.match(current.rec.errors[0] ?? "", /torchcts\.server\.path is set to/);
  assert.match(current.rec.errors[0] ?? "", new RegExp(`${tmp.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/nope/torchcts-lsp`));
});

test("lookup order: the bundled server wins over PATH", async () => {
  serverMustExist();
  const extPath = path.join(tmp, "ext");
  fs.mkdirSync(path.join(extPath, "server"));
  fs.symlinkSync(server, path.join(extPath, "server", "torchcts-lsp"));
  const fakeBin = path.join(tmp, "bin");
  fs.mkdirSync(fakeBin);
  fs.writeFileSync(path.join(fakeBin, "torchcts-lsp"), "#!/bin/sh\nexit 3\n", { mode: 0o755 });
  current = createMock({ workspaceFolder: tmp, config: {} });
  current.openDocument(path.join(tmp, "backend", "manifest.py"));
  const oldPath = process.env.PATH;
  process.env.PATH = `${fakeBin}${path.delimiter}${oldPath}`;
  try {
    ext = loadExtension();
    const api = ext.activate(current.makeContext(extPath));
    await api.ready;
    assert.equal(api.serverPath(), path.join(extPath, "server", "torchcts-lsp"));
    assert.equal(api.client()?.isRunning(), true);
  } finally {
    process.env.PATH = oldPath;
  }
});

test("lookup order: PATH when nothing is bundled", async () => {
  serverMustExist();
  const binDir = path.join(tmp, "bin");
  fs.mkdirSync(binDir);
  fs.symlinkSync(server, path.join(binDir, "torchcts-lsp"));
  current = createMock({ workspaceFolder: tmp, config: {} });
  current.openDocument(path.join(tmp, "backend", "manifest.py"));
  const oldPath = process.env.PATH;
  process.env.PATH = binDir;
  try {
    ext = loadExtension();
    const api = ext.activate(current.makeContext(path.join(tmp, "ext")));
    await api.ready;
    assert.equal(api.serverPath(), path.join(binDir, "torchcts-lsp"));
    assert.equal(api.client()?.isRunning(), true);
  } finally {
    process.env.PATH = oldPath;
  }
});

test("does not start the server while no manifest is open or in the workspace", async () => {
  serverMustExist();
  current = createMock({ workspaceFolder: tmp, config: { "torchcts.server.path": server } });
  const other = path.join(tmp, "backend", "setup.py");
  fs.writeFileSync(other, "print('hi')\n");
  current.openDocument(other);
  ext = loadExtension();
  const api = ext.activate(current.makeContext(path.join(tmp, "ext")));
  await api.ready;
  assert.equal(api.client(), undefined, "no server for setup.py");
  // Opening a manifest starts it.
  current.openDocument(path.join(tmp, "backend", "manifest.py"));
  await waitFor("the server to start after a manifest opens", () => api.client()?.isRunning());
});
