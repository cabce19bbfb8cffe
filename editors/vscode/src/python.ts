// The interpreter selected in the Python extension (ms-python.python), when it is installed:
// the environment where `pip install torchcts-lsp` put the server, and the default Python for
// test runs. Every failure (extension missing, API changed, activation error) is "none".

import * as vscode from "vscode";

const PYTHON_EXTENSION_ID = "ms-python.python";

/** The parts of the Python extension's API used here (both its current and older shapes). */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string } | undefined;
    resolveEnvironment(env: { id: string; path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined };
    onDidChangeExecutionDetails?: vscode.Event<unknown>;
  };
}

/** How long the server start waits for the Python extension to activate. */
const ACTIVATION_TIMEOUT_MS = 10_000;

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (ext === undefined) return undefined;
  if (ext.isActive) return ext.exports;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ACTIVATION_TIMEOUT_MS);
  });
  try {
    return await Promise.race([Promise.resolve(ext.activate()).catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The selected interpreter's path for `resource` (the first workspace folder), if any. */
export async function selectedInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
  const api = await pythonApi();
  if (api === undefined) return undefined;
  try {
    const active = api.environments?.getActiveEnvironmentPath(resource);
    if (active !== undefined) {
      const resolved = await api.environments?.resolveEnvironment(active);
      const exe = resolved?.executable?.uri?.fsPath ?? active.path;
      if (exe) return exe;
    }
    const command = api.settings?.getExecutionDetails(resource)?.execCommand;
    if (command !== undefined && command.length > 0 && command[0]) return command[0];
  } catch {
    // An API that throws is the same as no selection.
  }
  return undefined;
}

/** Calls `listener` when the selected interpreter changes (no-op without the extension). */
export async function onInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const api = await pythonApi();
  const event = api?.environments?.onDidChangeActiveEnvironmentPath ?? api?.settings?.onDidChangeExecutionDetails;
  try {
    return event?.(() => listener());
  } catch {
    return undefined;
  }
}
