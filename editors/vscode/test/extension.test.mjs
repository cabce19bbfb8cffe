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

/** A stand-in for ms-python.python's API whose selected interpreter is `python`. */
function fakePythonExtension(python) {
  const exports = {
    environments: {
      getActiveEnvironmentPath: () => ({ id: python, path: python }),
      resolveEnvironment: async () => ({ executable: { uri: { fsPath: python } } }),
      onDidChangeActiveEnvironmentPath: () => ({ dispose() {} }),
    },
  };
  return { id: "ms-python.python", isActive: false, exports: undefined, activate: async () => exports };
}

test("lookup order: the selected Python environment's torchcts-lsp wins over the bundled one; its interpreter is the runs' default", async () => {
  serverMustExist();
  const extPath = path.join(tmp, "ext");
  fs.mkdirSync(path.join(extPath, "server"));
  fs.writeFileSync(path.join(extPath, "server", "torchcts-lsp"), "#!/bin/sh\nexit 3\n", { mode: 0o755 });
  const venvBin = path.join(tmp, "venv", "bin");
  fs.mkdirSync(venvBin, { recursive: true });
  fs.writeFileSync(path.join(venvBin, "python"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  fs.symlinkSync(server, path.join(venvBin, "torchcts-lsp"));
  const python = path.join(venvBin, "python");
  current = createMock({ workspaceFolder: tmp, config: {}, extensions: { "ms-python.python": fakePythonExtension(python) } });
  current.openDocument(path.join(tmp, "backend", "manifest.py"));
  ext = loadExtension();
  const api = ext.activate(current.makeContext(extPath));
  await api.ready;
  assert.equal(api.serverPath(), path.join(venvBin, "torchcts-lsp"));
  assert.equal(api.client()?.isRunning(), true);
  assert.equal(api.client()?.clientOptions.initializationOptions.python.interpreter, python);
});

test("lookup order: an environment without torchcts-lsp falls through to the bundled server", async () => {
  serverMustExist();
  const extPath = path.join(tmp, "ext");
  fs.mkdirSync(path.join(extPath, "server"));
  fs.symlinkSync(server, path.join(extPath, "server", "torchcts-lsp"));
  const venvBin = path.join(tmp, "venv", "bin");
  fs.mkdirSync(venvBin, { recursive: true });
  const python = path.join(venvBin, "python");
  fs.writeFileSync(python, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  current = createMock({ workspaceFolder: tmp, config: {}, extensions: { "ms-python.python": fakePythonExtension(python) } });
  current.openDocument(path.join(tmp, "backend", "manifest.py"));
  ext = loadExtension();
  const api = ext.activate(current.makeContext(extPath));
  await api.ready;
  assert.equal(api.serverPath(), path.join(extPath, "server", "torchcts-lsp"));
  assert.equal(api.client()?.isRunning(), true);
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

// A minimal language server that advertises the four TorchCTS commands, records what it
// receives, and sends `torchcts/status` when a document opens: checks the status bar and
// what the extension's commands send, before the real server implements them.
const FAKE_SERVER = `#!/usr/bin/env node
const fs = require("fs");
const log = process.env.FAKE_LOG;
let buf = Buffer.alloc(0);
function send(msg) {
  const body = Buffer.from(JSON.stringify(msg));
  process.stdout.write("Content-Length: " + body.length + "\\r\\n\\r\\n");
  process.stdout.write(body);
}
function handle(msg) {
  fs.appendFileSync(log, JSON.stringify({ method: msg.method, params: msg.params }) + "\\n");
  if (msg.method === "initialize") {
    send({ jsonrpc: "2.0", id: msg.id, result: {
      capabilities: { textDocumentSync: 1, executeCommandProvider: { commands: [
        "torchcts.runAffectedTests", "torchcts.runLevel", "torchcts.cancelRun", "torchcts.showSkips"] } },
      serverInfo: { name: "fake-torchcts", version: "0" } } });
  } else if (msg.method === "textDocument/didOpen") {
    send({ jsonrpc: "2.0", method: "torchcts/status",
      params: { uri: msg.params.textDocument.uri, level: 3, run: 812, filtered: 3120 } });
  } else if (msg.method === "workspace/executeCommand") {
    const result = msg.params.command === "torchcts.showSkips" ? "# Skips at level " + msg.params.arguments[0].level : null;
    send({ jsonrpc: "2.0", id: msg.id, result });
  } else if (msg.method === "shutdown") {
    send({ jsonrpc: "2.0", id: msg.id, result: null });
  } else if (msg.method === "exit") {
    process.exit(0);
  } else if (msg.id !== undefined && msg.method !== undefined) {
    send({ jsonrpc: "2.0", id: msg.id, result: null });
  }
}
process.stdin.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const sep = buf.indexOf("\\r\\n\\r\\n");
    if (sep < 0) return;
    const len = Number(/Content-Length: *(\\d+)/i.exec(buf.slice(0, sep).toString())[1]);
    if (buf.length < sep + 4 + len) return;
    const body = buf.slice(sep + 4, sep + 4 + len).toString();
    buf = buf.slice(sep + 4 + len);
    handle(JSON.parse(body));
  }
});
`;

test("status bar shows torchcts/status counts; commands send workspace/executeCommand", async () => {
  const fake = path.join(tmp, "fake-torchcts-lsp");
  fs.writeFileSync(fake, FAKE_SERVER, { mode: 0o755 });
  const logFile = path.join(tmp, "fake.log");
  fs.writeFileSync(logFile, "");
  process.env.FAKE_LOG = logFile;
  current = createMock({
    workspaceFolder: tmp,
    config: { "torchcts.server.path": fake, "torchcts.device": "cuda", "torchcts.python.interpreter": "/opt/py/bin/python" },
  });
  const manifestPath = path.join(tmp, "backend", "manifest.py");
  const doc = current.openDocument(manifestPath);
  ext = loadExtension();
  const api = ext.activate(current.makeContext(path.join(tmp, "ext")));
  await api.ready;
  assert.equal(api.client()?.isRunning(), true);
  const status = current.rec.statusBarItems[0];
  await waitFor("the status bar to show the counts", () => status.text === "TorchCTS L3: 812 run, 3120 filtered");

  // The client registers the server's command ids; ours are distinct, so no clash.
  for (const id of ["torchcts.runAffectedTests", "torchcts.runLevel", "torchcts.cancelRun", "torchcts.showSkips"]) {
    assert.ok(current.rec.commands.has(id), `server command ${id} registered by the client`);
  }
  const exec = current.vscode.commands.executeCommand;
  current.vscode.window.activeTextEditor.selection = new current.vscode.Selection(new current.vscode.Position(4, 42), new current.vscode.Position(4, 42));
  await exec("torchcts.ui.runAffectedTests");
  await exec("torchcts.ui.runLevel", 4);
  await exec("torchcts.ui.cancelRun");
  await exec("torchcts.ui.showSkips");
  const sent = fs.readFileSync(logFile, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((m) => m.method === "workspace/executeCommand").map((m) => m.params);
  const uri = doc.uri.toString();
  assert.deepEqual(sent, [
    { command: "torchcts.runAffectedTests", arguments: [{ uri, position: { line: 4, character: 42 }, device: "cuda", python: "/opt/py/bin/python" }] },
    { command: "torchcts.runLevel", arguments: [{ uri, level: 4, device: "cuda", python: "/opt/py/bin/python" }] },
    { command: "torchcts.cancelRun", arguments: [{ uri }] },
    { command: "torchcts.showSkips", arguments: [{ uri, level: 3 }] },
  ]);
  const init = fs.readFileSync(logFile, "utf8").trim().split("\n").map((l) => JSON.parse(l)).find((m) => m.method === "initialize");
  assert.deepEqual(init.params.initializationOptions, {
    python: { interpreter: "/opt/py/bin/python" },
    device: "cuda",
    defaultLevel: 3,
    // onSave not set by the user: not sent, so the project's `on-save` can apply.
    run: { workers: 1, timeoutSeconds: 1800 },
    inlayHints: { enabled: true },
    inventory: { path: "" },
    manifests: [],
    logLevel: "info",
    logFile: "",
    cpythonCompile: true,
  });
  assert.deepEqual(current.rec.warnings, []);
  assert.deepEqual(current.rec.errors, []);
});

test("untrusted workspace (restricted mode): no runs, no interpreter, no on-save runs; skips still shown", async () => {
  const fake = path.join(tmp, "fake-torchcts-lsp");
  fs.writeFileSync(fake, FAKE_SERVER, { mode: 0o755 });
  const logFile = path.join(tmp, "fake.log");
  fs.writeFileSync(logFile, "");
  process.env.FAKE_LOG = logFile;
  current = createMock({
    untrusted: true,
    workspaceFolder: tmp,
    config: { "torchcts.server.path": fake, "torchcts.onSave": "level", "torchcts.python.interpreter": "/opt/py/bin/python", "torchcts.files.include": ["devices/*.py"] },
  });
  const manifestPath = path.join(tmp, "backend", "manifest.py");
  const doc = current.openDocument(manifestPath);
  ext = loadExtension();
  const api = ext.activate(current.makeContext(path.join(tmp, "ext")));
  await api.ready;
  assert.equal(api.client()?.isRunning(), true);
  const exec = current.vscode.commands.executeCommand;
  await exec("torchcts.ui.runAffectedTests");
  await exec("torchcts.ui.runLevel", 4);
  // The server's own command, as a code lens or code action would run it.
  await exec("torchcts.runLevel", { uri: doc.uri.toString(), level: 2 });
  await exec("torchcts.ui.showSkips", 2);
  const messages = fs.readFileSync(logFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const sent = messages.filter((m) => m.method === "workspace/executeCommand").map((m) => m.params.command);
  assert.deepEqual(sent, ["torchcts.showSkips"]);
  const init = messages.find((m) => m.method === "initialize");
  assert.equal(init.params.initializationOptions.onSave, "off");
  assert.deepEqual(init.params.initializationOptions.python, { interpreter: "" });
  assert.deepEqual(init.params.initializationOptions.manifests, ["devices/*.py"]);
  assert.equal(current.rec.warnings.length, 3, JSON.stringify(current.rec.warnings));
  assert.match(String(current.rec.warnings[0]), /untrusted workspace/);
});

test("TorchCTS: Open support record shows the report of the manifest and a run in a webview; a cell's line opens the entry", async () => {
  serverMustExist();
  // The artifacts of a real torchcts run on cpu: `add` float32 passed, `sub` float32 errored.
  const artifacts = path.join(repoRoot, "tests", "fixtures", "runs", "artifacts", "focused", "results");
  fs.cpSync(artifacts, path.join(tmp, "backend", "results"), { recursive: true });
  current = createMock({ workspaceFolder: tmp, config: { "torchcts.server.path": server } });
  const manifestPath = path.join(tmp, "backend", "manifest.py");
  fs.writeFileSync(manifestPath, MANIFEST.replace('"capabilities"', '"supported_dtypes": {torch.float32: True},\n    "capabilities"'));
  current.openDocument(manifestPath);
  ext = loadExtension();
  const api = ext.activate(current.makeContext(path.join(tmp, "ext")));
  await api.ready;
  const view = await current.vscode.commands.executeCommand("torchcts.ui.openSupportRecord");
  assert.ok(view, "the command returns the view");
  await view.rendered;
  const panel = current.rec.webviewPanels[0];
  assert.equal(panel.viewType, "torchcts.supportRecord");
  assert.equal(panel.showOptions.viewColumn, current.vscode.ViewColumn.Beside);
  assert.equal(panel.options.enableScripts, true);
  const html = panel.webview.html;
  assert.match(html, /<h1>TorchCTS support record <code id="manifest">manifest\.py<\/code><\/h1>/);
  assert.match(html, /Runs showed, on <code>cpu<\/code>: <span id="evidence-line">1 passed · 1 errored · \d+ no record/);
  assert.ok(!html.includes(tmp), "no absolute path of the machine in the page");
  // The page's script posts the line of a clicked cell: the manifest's line 5 is shown.
  panel.post({ command: "reveal", line: 5 });
  await waitFor("the manifest to be shown at the line", () => current.rec.shownEditors.find((e) => e.revealed));
  const editor = current.rec.shownEditors.find((e) => e.revealed);
  assert.equal(editor.document.uri.fsPath, manifestPath);
  assert.equal(editor.selection.active.line, 4);
  // An edit to the manifest makes the page again (debounced): its dtypes change.
  const doc = editor.document;
  current.editDocument(doc, doc.getText().replace("torch.float32: True", "torch.float32: True, torch.float16: True"));
  await waitFor("the page to be made again", () => panel.htmls.length >= 2, 15000);
  await view.rendered;
  assert.match(panel.webview.html, />float16<br><small>True<\/small>/);
  assert.deepEqual(current.rec.errors, []);
});
