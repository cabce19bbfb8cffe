// VS Code client for torchcts-lsp, the language server for TorchCTS manifest.py files.

import * as vscode from "vscode";
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  TransportKind,
} from "vscode-languageclient/node";
import { onInterpreterChange, selectedInterpreter } from "./python";
import { findServer } from "./server";
import { SupportRecordView } from "./report";
import { ManifestStatus, isManifestStatus, statusText, statusTooltip } from "./status";

const SECTION = "torchcts";

/** Commands the server offers through `workspace/executeCommand`. */
export const SERVER_COMMANDS = {
  runAffectedTests: "torchcts.runAffectedTests",
  runLevel: "torchcts.runLevel",
  cancelRun: "torchcts.cancelRun",
  showSkips: "torchcts.showSkips",
} as const;

/**
 * The extension's own command ids. They differ from the server's, because
 * vscode-languageclient registers every command the server advertises under its own id
 * (so that code actions can run them) and a second registration would clash.
 */
export const UI_COMMANDS = {
  runAffectedTests: "torchcts.ui.runAffectedTests",
  runLevel: "torchcts.ui.runLevel",
  cancelRun: "torchcts.ui.cancelRun",
  showSkips: "torchcts.ui.showSkips",
  openSupportRecord: "torchcts.ui.openSupportRecord",
  restartServer: "torchcts.restartServer",
  showOutput: "torchcts.showOutput",
} as const;

/** What `activate` returns: handy for other extensions and for tests. */
export interface TorchctsApi {
  /** Settles when the first server start has finished (or failed). */
  ready: Promise<void>;
  client(): LanguageClient | undefined;
  serverPath(): string | undefined;
  statusBarText(): string;
}

let controller: Controller | undefined;

export function activate(context: vscode.ExtensionContext): TorchctsApi {
  controller = new Controller(context);
  context.subscriptions.push(controller);
  const ready = controller.startIfNeeded();
  return {
    ready,
    client: () => controller?.client,
    serverPath: () => controller?.serverPath,
    statusBarText: () => controller?.statusBar.text ?? "",
  };
}

export async function deactivate(): Promise<void> {
  const c = controller;
  controller = undefined;
  if (c !== undefined) await c.stop();
}

function settings() {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  return {
    serverPath: cfg.get<string>("server.path", ""),
    include: cfg.get<string[]>("files.include", []),
    pythonInterpreter: cfg.get<string>("python.interpreter", ""),
    device: cfg.get<string>("device", ""),
    defaultLevel: cfg.get<number>("defaultLevel", 3),
    // Only what the user set: otherwise the project's `[tool.torchcts-lsp] on-save` applies.
    onSave: userValue<string>(cfg, "onSave"),
    workers: cfg.get<number>("run.workers", 1),
    timeoutSeconds: cfg.get<number>("run.timeoutSeconds", 1800),
    inlayHints: cfg.get<boolean>("inlayHints.enabled", true),
    inventoryPath: cfg.get<string>("inventory.path", ""),
    logLevel: cfg.get<string>("logLevel", "info"),
    logFile: cfg.get<string>("logFile", ""),
    cpythonCompile: cfg.get<boolean>("cpythonCompile", true),
  };
}

/** A setting's value where the user (or the workspace) set it; undefined for the default. */
function userValue<T>(cfg: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = cfg.inspect<T>(key);
  return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
}

/** The server commands that start a test run: refused in an untrusted workspace. */
const RUN_COMMANDS: readonly string[] = [SERVER_COMMANDS.runAffectedTests, SERVER_COMMANDS.runLevel, "torchcts.rerunFailed"];

/**
 * Whether the workspace is trusted. Untrusted (restricted mode, `capabilities.untrustedWorkspaces`
 * is "limited"): diagnostics, hovers, completion and quick fixes work; no test run starts
 * (no Python runs), the Python extension is not asked for an interpreter, and a server
 * inside the workspace's Python environment is not used.
 */
function trusted(): boolean {
  return vscode.workspace.isTrusted !== false;
}

/**
 * The settings as the server receives them (initializationOptions and configuration).
 * `selectedPython`: the Python extension's interpreter, the default when the setting is empty.
 */
function serverSettings(selectedPython: string | undefined) {
  const s = settings();
  const safe = trusted();
  return {
    python: { interpreter: safe ? s.pythonInterpreter || selectedPython || "" : "" },
    device: s.device,
    defaultLevel: s.defaultLevel,
    onSave: safe ? s.onSave : "off",
    run: { workers: s.workers, timeoutSeconds: s.timeoutSeconds },
    inlayHints: { enabled: s.inlayHints },
    inventory: { path: s.inventoryPath },
    manifests: s.include.filter((p) => typeof p === "string" && p.trim() !== ""),
    logLevel: s.logLevel,
    logFile: s.logFile,
    // The environment's CPython compile()s a manifest with a syntax error (never runs it);
    // not in an untrusted workspace, whose interpreter is the workspace's own file.
    cpythonCompile: safe && s.cpythonCompile,
  };
}

function documentSelector(): { scheme: string; pattern: string }[] {
  const patterns = ["**/manifest.py", ...settings().include.filter((p) => typeof p === "string" && p.trim() !== "")];
  return patterns.map((pattern) => ({ scheme: "file", pattern }));
}

class Controller implements vscode.Disposable {
  client: LanguageClient | undefined;
  serverPath: string | undefined;
  /** The interpreter selected in the Python extension when the server last started. */
  selectedPython: string | undefined;
  readonly statusBar: vscode.StatusBarItem;
  private readonly output: vscode.OutputChannel;
  private readonly traceOutput: vscode.OutputChannel;
  private readonly statuses = new Map<string, ManifestStatus>();
  private readonly disposables: vscode.Disposable[] = [];
  private starting: Promise<void> | undefined;
  private failed: string | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel("TorchCTS");
    this.traceOutput = vscode.window.createOutputChannel("TorchCTS Language Server Trace");
    this.statusBar = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
    this.statusBar.name = "TorchCTS";
    this.statusBar.command = UI_COMMANDS.showSkips;
    this.updateStatusBar();
    this.statusBar.show();

    const reg = (id: string, fn: (...args: unknown[]) => unknown) =>
      this.disposables.push(vscode.commands.registerCommand(id, fn));
    reg(UI_COMMANDS.runAffectedTests, () => this.runAffectedTests());
    reg(UI_COMMANDS.runLevel, (level?: unknown) => this.runLevel(level));
    reg(UI_COMMANDS.cancelRun, () => this.execute(SERVER_COMMANDS.cancelRun, { uri: this.activeManifest()?.uri.toString() }));
    reg(UI_COMMANDS.showSkips, (level?: unknown) => this.showSkips(level));
    reg(UI_COMMANDS.openSupportRecord, () => this.openSupportRecord());
    reg(UI_COMMANDS.restartServer, () => this.restart());
    reg(UI_COMMANDS.showOutput, () => this.output.show(true));

    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.updateStatusBar()),
      vscode.workspace.onDidOpenTextDocument((doc) => {
        if (this.client === undefined && this.failed === undefined && this.matches(doc)) void this.startIfNeeded();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`${SECTION}.server.path`) || e.affectsConfiguration(`${SECTION}.files.include`)) {
          this.output.appendLine("Server path or manifest patterns changed: restarting the server.");
          void this.restart();
        }
      }),
    );
    // Trust granted: runs and the Python environment's server become available.
    this.disposables.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        if (this.client === undefined && this.failed === undefined) return;
        this.output.appendLine("The workspace is trusted now: restarting the server.");
        void this.restart();
      }),
    );
    // Another interpreter may mean another environment's torchcts-lsp and another default
    // Python for runs.
    void onInterpreterChange(() => {
      if (this.client === undefined && this.failed === undefined) return;
      this.output.appendLine("The selected Python interpreter changed: restarting the server.");
      void this.restart();
    }).then((d) => {
      if (d !== undefined) this.disposables.push(d);
    });
  }

  private matches(doc: vscode.TextDocument): boolean {
    return vscode.languages.match(documentSelector(), doc) > 0;
  }

  /** Starts the server when a manifest is open or the workspace has one; otherwise waits for one. */
  async startIfNeeded(): Promise<void> {
    if (this.client !== undefined) return;
    if (this.starting !== undefined) return this.starting;
    const anyOpen = vscode.workspace.textDocuments.some((d) => this.matches(d));
    if (!anyOpen) {
      let found = false;
      try {
        found = (await vscode.workspace.findFiles("**/manifest.py", "**/node_modules/**", 1)).length > 0;
      } catch {
        found = false;
      }
      if (!found) {
        this.output.appendLine("No manifest open or in the workspace yet: the server starts when one is opened.");
        return;
      }
    }
    return this.start();
  }

  private start(): Promise<void> {
    if (this.starting !== undefined) return this.starting;
    this.starting = this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    this.failed = undefined;
    const s = settings();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    // Untrusted: no interpreter detection (a workspace environment's binaries are not run).
    this.selectedPython = trusted() ? await selectedInterpreter(folder) : undefined;
    if (!trusted()) this.output.appendLine("Restricted mode: no test runs, no Python interpreter detection.");
    if (this.selectedPython !== undefined) this.output.appendLine(`Python extension's interpreter: ${this.selectedPython}`);
    const lookup = findServer({
      setting: s.serverPath,
      extensionPath: this.context.extensionPath,
      workspaceFolder: folder?.fsPath,
      pythonInterpreter: this.selectedPython,
    });
    if (!lookup.ok) {
      this.fail(lookup.message);
      void vscode.window.showErrorMessage(lookup.message, "Open Settings", "Show Output").then((choice) => {
        if (choice === "Open Settings") void vscode.commands.executeCommand("workbench.action.openSettings", "torchcts.server.path");
        if (choice === "Show Output") this.output.show(true);
      });
      return;
    }
    this.serverPath = lookup.path;
    this.output.appendLine(`Starting ${lookup.path} (found via ${lookup.source}).`);

    // With TransportKind.stdio the client appends `--stdio`, which the server accepts.
    const serverOptions: ServerOptions = {
      run: { command: lookup.path, transport: TransportKind.stdio },
      debug: { command: lookup.path, transport: TransportKind.stdio, options: { env: { ...process.env, RUST_BACKTRACE: "1" } } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: documentSelector(),
      diagnosticCollectionName: SECTION,
      outputChannel: this.output,
      traceOutputChannel: this.traceOutput,
      initializationOptions: serverSettings(this.selectedPython),
      synchronize: { configurationSection: SECTION },
      middleware: {
        provideInlayHints: (document, range, token, next) =>
          settings().inlayHints ? next(document, range, token) : [],
        // Untrusted: no run lenses, no run actions, no run commands.
        provideCodeLenses: async (document, token, next) => {
          const lenses = await next(document, token);
          return trusted() || !lenses ? lenses : lenses.filter((l) => !RUN_COMMANDS.includes(l.command?.command ?? ""));
        },
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          if (trusted() || !actions) return actions;
          return actions.filter((a) => {
            const kind = "kind" in a && a.kind !== undefined ? a.kind.value : "";
            const command = "command" in a && typeof a.command === "object" ? a.command?.command : a.command;
            return !kind.startsWith("source.torchcts.run") && !RUN_COMMANDS.includes(String(command ?? ""));
          });
        },
        executeCommand: async (command, args, next) => {
          if (!trusted() && RUN_COMMANDS.includes(command)) {
            void vscode.window.showWarningMessage("TorchCTS: test runs are disabled in an untrusted workspace (restricted mode).");
            return undefined;
          }
          return next(command, args);
        },
        workspace: {
          // The server asks for the `torchcts` section; answer in the same shape as
          // initializationOptions, whatever VS Code's nesting of dotted keys.
          configuration: async (params, token, next) => {
            const result = await next(params, token);
            if (!Array.isArray(result)) return result;
            return params.items.map((item, i) => (item.section === SECTION ? serverSettings(this.selectedPython) : result[i]));
          },
        },
      },
    };
    const client = new LanguageClient(SECTION, "TorchCTS Language Server", serverOptions, clientOptions);
    this.client = client;
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped && this.client === client && this.failed === undefined) {
        this.statusBar.text = "$(warning) TorchCTS";
        this.statusBar.tooltip = "The TorchCTS language server stopped. Run 'TorchCTS: Restart Language Server'.";
      } else if (e.newState === State.Running) {
        this.updateStatusBar();
      }
    });
    this.statusBar.text = "$(sync~spin) TorchCTS";
    try {
      await client.start();
    } catch (err) {
      this.client = undefined;
      const message = `TorchCTS: the language server ${lookup.path} failed to start: ${String(err)}`;
      this.fail(message);
      void vscode.window.showErrorMessage(message);
      return;
    }
    client.onNotification("torchcts/status", (params: unknown) => {
      if (!isManifestStatus(params)) return;
      this.statuses.set(params.uri, params);
      this.updateStatusBar();
    });
    const info = client.initializeResult?.serverInfo;
    this.output.appendLine(`Server running: ${info?.name ?? "?"} ${info?.version ?? ""}`.trimEnd());
    this.updateStatusBar();
  }

  private fail(message: string) {
    this.failed = message;
    this.output.appendLine(message);
    this.statusBar.text = "$(error) TorchCTS";
    this.statusBar.tooltip = message;
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.statuses.clear();
    if (client !== undefined && client.state !== State.Stopped) {
      // Sends `shutdown`, then `exit`; kills the process if it has not exited in 2 s.
      await client.stop(2000).catch((err) => this.output.appendLine(`Stopping the server: ${String(err)}`));
    }
  }

  async restart(): Promise<void> {
    if (this.starting !== undefined) await this.starting.catch(() => undefined);
    await this.stop();
    this.failed = undefined;
    await this.start();
  }

  private activeManifest(): vscode.TextDocument | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    return doc !== undefined && this.matches(doc) ? doc : undefined;
  }

  private updateStatusBar() {
    if (this.failed !== undefined) return;
    const doc = this.activeManifest();
    const s = doc !== undefined ? this.statuses.get(doc.uri.toString()) : undefined;
    this.statusBar.text = statusText(s);
    this.statusBar.tooltip = statusTooltip(s);
  }

  private async pickLevel(arg: unknown, title: string): Promise<number | undefined> {
    if (typeof arg === "number" && Number.isInteger(arg) && arg >= 1 && arg <= 8) return arg;
    const def = settings().defaultLevel;
    const items = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({
      label: `Level ${n}`,
      description: n === def ? "torchcts.defaultLevel" : undefined,
      level: n,
    }));
    items.sort((a, b) => (a.level === def ? -1 : b.level === def ? 1 : a.level - b.level));
    const picked = await vscode.window.showQuickPick(items, { title, placeHolder: "Semantic level" });
    return picked?.level;
  }

  private requireManifest(): vscode.TextDocument | undefined {
    const doc = this.activeManifest();
    if (doc === undefined) void vscode.window.showWarningMessage("TorchCTS: open a manifest.py first.");
    return doc;
  }

  private refuseUntrusted(): boolean {
    if (trusted()) return false;
    void vscode.window.showWarningMessage("TorchCTS: test runs are disabled in an untrusted workspace (restricted mode).");
    return true;
  }

  private runOptions() {
    const s = settings();
    return { device: s.device || undefined, python: s.pythonInterpreter || this.selectedPython || undefined };
  }

  private async runAffectedTests() {
    if (this.refuseUntrusted()) return;
    const doc = this.requireManifest();
    if (doc === undefined) return;
    const editor = vscode.window.activeTextEditor;
    const position = editor?.selection.active;
    await this.execute(SERVER_COMMANDS.runAffectedTests, {
      uri: doc.uri.toString(),
      position: position ? { line: position.line, character: position.character } : undefined,
      ...this.runOptions(),
    });
  }

  private async runLevel(arg: unknown) {
    if (this.refuseUntrusted()) return;
    const doc = this.requireManifest();
    if (doc === undefined) return;
    const level = await this.pickLevel(arg, "TorchCTS: run tests at level");
    if (level === undefined) return;
    await this.execute(SERVER_COMMANDS.runLevel, { uri: doc.uri.toString(), level, ...this.runOptions() });
  }

  private async showSkips(arg: unknown) {
    const doc = this.requireManifest();
    if (doc === undefined) return;
    const status = this.statuses.get(doc.uri.toString());
    const level = typeof arg === "number" ? arg : status?.level ?? (await this.pickLevel(undefined, "TorchCTS: show skips at level"));
    if (level === undefined) return;
    const result = await this.execute(SERVER_COMMANDS.showSkips, { uri: doc.uri.toString(), level });
    const text =
      typeof result === "string"
        ? result
        : typeof result === "object" && result !== null && typeof (result as { markdown?: unknown }).markdown === "string"
          ? (result as { markdown: string }).markdown
          : undefined;
    if (text !== undefined) {
      const shown = await vscode.workspace.openTextDocument({ language: "markdown", content: text });
      await vscode.window.showTextDocument(shown, { preview: true, viewColumn: vscode.ViewColumn.Beside });
    }
  }

  /**
   * The support record of the active manifest in a webview beside it, made by the server's
   * binary (`torchcts-lsp report`, from the editor's text); it reads files, runs no Python.
   */
  private openSupportRecord(): SupportRecordView | undefined {
    const doc = this.requireManifest();
    if (doc === undefined) return undefined;
    if (this.serverPath === undefined) {
      void vscode.window.showWarningMessage("TorchCTS: no torchcts-lsp found; see the TorchCTS output.");
      return undefined;
    }
    return SupportRecordView.show(this.serverPath, doc, settings().device || undefined);
  }

  /** Sends `workspace/executeCommand` with one argument object, if the server offers the command. */
  private async execute(command: string, args: Record<string, unknown>): Promise<unknown> {
    const client = this.client;
    if (client === undefined || client.state !== State.Running) {
      void vscode.window.showWarningMessage("TorchCTS: the language server is not running.");
      return undefined;
    }
    const offered = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    if (!offered.includes(command)) {
      const v = client.initializeResult?.serverInfo?.version ?? "?";
      void vscode.window.showWarningMessage(
        `TorchCTS: this torchcts-lsp (${v}) does not offer the command ${command}; update the server.`,
      );
      return undefined;
    }
    try {
      return await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] });
    } catch (err) {
      void vscode.window.showErrorMessage(`TorchCTS: ${command} failed: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  dispose() {
    for (const d of this.disposables) d.dispose();
    this.statusBar.dispose();
    void this.stop().finally(() => {
      this.output.dispose();
      this.traceOutput.dispose();
    });
  }
}
