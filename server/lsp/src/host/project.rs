//! The project around a manifest: its `[tool.torchcts-lsp]` configuration
//! ([`project_config`](super::project_config)), its known-segfault ledger
//! ([`project_ledger`](super::project_ledger)), and the one rule for the configuration's
//! `ignore` list, which the CLI, the server and the Python API all apply.

use torchcts_core::{Finding, Origin};

/// Whether `ignored` (a configuration's `ignore` codes) silences `finding`: only
/// torchcts-lsp's own codes; a check-manifest finding is the real tool's verdict and stays.
pub fn ignores(ignored: &[String], finding: &Finding) -> bool {
    finding.origin == Origin::Lsp && ignored.iter().any(|code| code == finding.code)
}

/// The codes in `ignored` that name check-manifest's own findings among `findings`, each
/// once: not silenced (the real tool, and CI, still report them); the CLI says so.
pub fn ignored_but_kept<'f>(ignored: &[String], findings: &'f [Finding]) -> Vec<&'f str> {
    let mut kept: Vec<&str> = Vec::new();
    for f in findings.iter().filter(|f| f.origin == Origin::Torchcts) {
        if ignored.iter().any(|c| c == f.code) && !kept.contains(&f.code) {
            kept.push(f.code);
        }
    }
    kept
}
