// Finding the torchcts-lsp binary: the setting, then the selected Python environment's
// (`pip install torchcts-lsp` puts it beside the interpreter), then the binary bundled with
// the extension, then PATH. Kept free of the `vscode` module so that it is easy to test.

import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export const SERVER_NAME = process.platform === "win32" ? "torchcts-lsp.exe" : "torchcts-lsp";

export type ServerLookup =
  | { ok: true; path: string; source: "setting" | "Python environment" | "bundled" | "PATH" }
  | { ok: false; message: string; tried: string[] };

function isExecutableFile(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform !== "win32") fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Expands `~` and `${workspaceFolder}` (the first folder) in a configured path. */
export function expandPath(raw: string, workspaceFolder: string | undefined): string {
  let p = raw.trim();
  if (p === "~" || p.startsWith("~/")) p = path.join(os.homedir(), p.slice(1));
  if (workspaceFolder !== undefined) p = p.split("${workspaceFolder}").join(workspaceFolder);
  return p;
}

export function searchPath(name: string, envPath: string | undefined): string | undefined {
  for (const dir of (envPath ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Where an interpreter's environment keeps its console scripts: beside the interpreter
 * (`<venv>/bin/python`, `<venv>\Scripts\python.exe`), or in `Scripts\` under a Windows
 * base or conda interpreter.
 */
export function environmentServerCandidates(interpreter: string): string[] {
  const dir = path.dirname(interpreter);
  const candidates = [path.join(dir, SERVER_NAME)];
  if (process.platform === "win32") candidates.push(path.join(dir, "Scripts", SERVER_NAME));
  return candidates;
}

/**
 * Lookup order: `torchcts.server.path` (an error if set but unusable; no fallback, so a
 * typo never silently runs another binary), the `torchcts-lsp` of the Python environment
 * selected in the Python extension (`pythonInterpreter`), `<extension>/server/torchcts-lsp`,
 * `PATH`.
 */
export function findServer(opts: {
  setting: string | undefined;
  extensionPath: string;
  workspaceFolder?: string;
  envPath?: string;
  pythonInterpreter?: string;
}): ServerLookup {
  const tried: string[] = [];
  const setting = (opts.setting ?? "").trim();
  if (setting !== "") {
    const p = path.resolve(opts.workspaceFolder ?? process.cwd(), expandPath(setting, opts.workspaceFolder));
    if (isExecutableFile(p)) return { ok: true, path: p, source: "setting" };
    return {
      ok: false,
      tried: [p],
      message: `torchcts.server.path is set to "${setting}", but ${p} is not an executable file. Fix the setting, or clear it to use the bundled server or torchcts-lsp from PATH.`,
    };
  }
  const interpreter = (opts.pythonInterpreter ?? "").trim();
  if (interpreter !== "") {
    for (const candidate of environmentServerCandidates(interpreter)) {
      tried.push(candidate);
      if (isExecutableFile(candidate)) return { ok: true, path: candidate, source: "Python environment" };
    }
  }
  const bundled = path.join(opts.extensionPath, "server", SERVER_NAME);
  tried.push(bundled);
  if (isExecutableFile(bundled)) return { ok: true, path: bundled, source: "bundled" };
  const onPath = searchPath(SERVER_NAME, opts.envPath ?? process.env.PATH);
  tried.push(`${SERVER_NAME} on PATH`);
  if (onPath !== undefined) return { ok: true, path: onPath, source: "PATH" };
  return {
    ok: false,
    tried,
    message:
      `TorchCTS: cannot find the language server ${SERVER_NAME}. Looked at: the setting torchcts.server.path (empty), ` +
      (interpreter !== "" ? `the selected Python environment (${environmentServerCandidates(interpreter)[0]}), ` : "") +
      `${bundled} (bundled), and PATH. Install it into your Python environment with \`pip install torchcts-lsp\`, ` +
      `or build it with \`cargo build --release -p torchcts-lsp\` and set torchcts.server.path, or put it on PATH.`,
  };
}
