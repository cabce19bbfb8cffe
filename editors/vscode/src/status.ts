// The `torchcts/status` notification (server -> client) and how the status bar shows it.
// Kept free of the `vscode` module so that it is easy to test.

/** Params of the custom notification `torchcts/status`. */
export interface ManifestStatus {
  uri: string;
  level: number;
  run: number;
  filtered: number;
}

export function isManifestStatus(v: unknown): v is ManifestStatus {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o.uri === "string" &&
    typeof o.level === "number" &&
    typeof o.run === "number" &&
    typeof o.filtered === "number"
  );
}

export function statusText(s: ManifestStatus | undefined): string {
  if (s === undefined) return "TorchCTS";
  return `TorchCTS L${s.level}: ${s.run} run, ${s.filtered} filtered`;
}

export function statusTooltip(s: ManifestStatus | undefined): string {
  if (s === undefined) return "TorchCTS manifest language server. Click for the skips of this manifest.";
  return (
    `TorchCTS at semantic level ${s.level}: ${s.run} test nodes run, ${s.filtered} filtered out.\n` +
    `Click for the skips by reason.`
  );
}
