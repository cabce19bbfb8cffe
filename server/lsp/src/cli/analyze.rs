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
    let analysis = analyze(
        &text,
        &AnalysisInput {
            inventory: Some(torchcts_core::accounting_view::Inventory::embedded()),
            dir_exists: Some(&dir_exists),
            file_name: path.file_name().and_then(|n| n.to_str()),
            ..AnalysisInput::default()
        },
    );

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
    if let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) {
        print_accounting(manifest);
    }
    ExitCode::SUCCESS
}

/// The per-level accounting `torchcts show-skips` would report, from the embedded inventory.
fn print_accounting(manifest: &torchcts_core::value::Dict) {
    use torchcts_core::accounting_view as av;
    let inventory = av::Inventory::embedded();
    let facts = av::facts(manifest);
    let summary = av::summarize(inventory, &facts, None);
    let level = av::selected_level(&summary);
    println!();
    println!(
        "== Accounting on `{}` (inventory: torchcts {} + torch {}; {}), like `torchcts show-skips`",
        summary.device,
        inventory.meta.torchcts_version,
        inventory.meta.torch_version,
        summary.selection.label()
    );
    println!("{:>5} {:>9} {:>9} {:>15}", "level", "run", "filtered", "run up to here");
    let mut cumulative = 0;
    for (i, (_, run, filtered)) in summary.levels.iter().enumerate() {
        cumulative += run;
        let mark = if i + 1 == level { "  <- semantic_level" } else { "" };
        println!("{:>5} {:>9} {:>9} {:>15}{mark}", i + 1, run, filtered, cumulative);
    }
    println!(
        "show-skips at this level: {}/{} tests collected ({} deselected), {} not-run records",
        summary.included, summary.collected, summary.deselected, summary.records
    );
    if summary.device_assumed {
        println!("note: `{}` is not a device the inventory recorded; counted as a PrivateUse1 backend", summary.device);
    }
    for n in summary.not_modelled.iter().chain(av::unknown_inputs(manifest).iter()) {
        println!("note: {n}");
    }
}
