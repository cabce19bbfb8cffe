// "TorchCTS: Open support record": the page `torchcts-lsp report` writes for a manifest (what
// it claims against what the runs in its result folders showed), in a webview beside it.
// The page is made by the CLI from the editor's text (stdin, so unsaved edits count), again
// (debounced) when the manifest changes or a results folder beside it does. A click on a
// matrix cell or an entry in the page posts its manifest line; the editor goes there.

import { spawn } from "child_process";
import * as path from "path";
import * as vscode from "vscode";

/** How long the page waits after the last change before it is made again. */
export const REFRESH_DELAY_MS = 600;

/** The command line that makes the page of a manifest at `file` from stdin. */
export function reportArgs(file: string, device: string | undefined): string[] {
  const args = ["report", "-", "--stdin-filename", path.basename(file), "--format", "html"];
  if (device) args.push("--device", device);
  return args;
}

/** Runs the CLI with `text` on stdin in the manifest's folder; the page, or an error. */
export function renderRecord(server: string, file: string, text: string, device: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(server, reportArgs(file, device), { cwd: path.dirname(file), stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString("utf8"));
      else reject(new Error(Buffer.concat(err).toString("utf8").trim() || `torchcts-lsp report exited with ${code}`));
    });
    child.stdin.end(text);
  });
}

function errorPage(message: string): string {
  const escaped = message.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] ?? c);
  return `<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body><h1>TorchCTS support record</h1><pre>${escaped}</pre></body></html>`;
}

/** The open support record of one manifest. */
export class SupportRecordView implements vscode.Disposable {
  private static open = new Map<string, SupportRecordView>();
  private readonly panel: vscode.WebviewPanel;
  private readonly disposables: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Settles when the page being made is shown (tests wait on it). */
  rendered: Promise<void> = Promise.resolve();

  static show(server: string, document: vscode.TextDocument, device: string | undefined): SupportRecordView {
    const key = document.uri.toString();
    const known = SupportRecordView.open.get(key);
    if (known !== undefined) {
      known.panel.reveal(vscode.ViewColumn.Beside, true);
      known.refresh();
      return known;
    }
    const view = new SupportRecordView(server, document, device);
    SupportRecordView.open.set(key, view);
    return view;
  }

  private constructor(
    private readonly server: string,
    private readonly document: vscode.TextDocument,
    private readonly device: string | undefined,
  ) {
    this.panel = vscode.window.createWebviewPanel(
      "torchcts.supportRecord",
      `Support record: ${path.basename(path.dirname(document.uri.fsPath))}/${path.basename(document.uri.fsPath)}`,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      // The page's script runs the filter box and posts the lines of clicked cells; it loads nothing.
      { enableScripts: true, localResourceRoots: [] },
    );
    this.disposables.push(
      this.panel.onDidDispose(() => this.dispose()),
      this.panel.webview.onDidReceiveMessage((m: unknown) => void this.reveal(m)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.toString() === this.document.uri.toString()) this.schedule();
      }),
    );
    const folder = path.dirname(document.uri.fsPath);
    for (const results of ["results", path.join(".torchcts-lsp", "results")]) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, `${results}/**`));
      const changed = () => this.schedule();
      this.disposables.push(watcher, watcher.onDidCreate(changed), watcher.onDidChange(changed), watcher.onDidDelete(changed));
    }
    this.refresh();
  }

  /** Makes the page again after [`REFRESH_DELAY_MS`] without a further change. */
  schedule() {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refresh();
    }, REFRESH_DELAY_MS);
  }

  refresh() {
    const text = this.document.getText();
    this.rendered = renderRecord(this.server, this.document.uri.fsPath, text, this.device).then(
      (html) => {
        this.panel.webview.html = html;
      },
      (err: unknown) => {
        this.panel.webview.html = errorPage(err instanceof Error ? err.message : String(err));
      },
    );
  }

  /** A `{command: "reveal", line}` from the page: the manifest's line (1-based) in its editor. */
  private async reveal(message: unknown) {
    const m = message as { command?: unknown; line?: unknown };
    if (m?.command !== "reveal" || typeof m.line !== "number" || !Number.isInteger(m.line) || m.line < 1) return;
    const line = Math.min(m.line - 1, Math.max(this.document.lineCount - 1, 0));
    const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === this.document.uri.toString());
    const editor = await vscode.window.showTextDocument(this.document, {
      viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One,
      preserveFocus: false,
    });
    const at = new vscode.Position(line, 0);
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  dispose() {
    if (this.timer !== undefined) clearTimeout(this.timer);
    SupportRecordView.open.delete(this.document.uri.toString());
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}
