//! `torchcts-lsp analyze FILE`: everything the editor would show, as text — every
//! diagnostic (the real tool's and ours) with its position, then what
//! `torchcts check-manifest` would print.

use super::{dir_exists_relative_to, read_manifest};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use torchcts_core::{analyze, AnalysisInput, Origin, PositionEncoding, Severity};

pub fn run(args: &[String]) -> ExitCode {
    let Some(file) = args.iter().find(|a| !a.starts_with('-')) else {
        eprintln!("usage: torchcts-lsp analyze FILE");
        return ExitCode::from(2);
    };
    let path = PathBuf::from(file);
    let text = match read_manifest(&path) {
        Ok(t) => t,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(1);
        }
    };
    let base =
        path.canonicalize().ok().and_then(|p| p.parent().map(Path::to_path_buf)).unwrap_or_else(|| PathBuf::from("."));
    let dir_exists = dir_exists_relative_to(&base);
    let analysis = analyze(&text, &AnalysisInput { old_tree: None, dir_exists: Some(&dir_exists), inventory: Some(torchcts_core::accounting_view::Inventory::embedded()) });

    println!("== Diagnostics for {} ({} findings)", path.display(), analysis.findings.len());
    let mut findings: Vec<_> = analysis.findings.iter().collect();
    findings.sort_by_key(|f| f.span.start);
    for f in findings {
        let pos = analysis.line_index.position(&text, f.span.start, PositionEncoding::Utf32);
        let severity = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "info",
            Severity::Hint => "hint",
        };
        let source = match f.origin {
            Origin::Torchcts => "torchcts",
            Origin::Lsp => "torchcts-lsp",
        };
        println!("{}:{}:{}: {severity} [{source} {}] {}", path.display(), pos.line + 1, pos.col + 1, f.code, f.message);
    }
    println!();
    println!("== torchcts check-manifest would print (exit code {})", analysis.check.exit_code());
    for (_, line) in analysis.check.lines() {
        println!("{line}");
    }
    ExitCode::SUCCESS
}
