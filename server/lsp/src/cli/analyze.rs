//! `torchcts-lsp analyze FILE`: everything the editor would show — every diagnostic (the
//! real tool's and ours) with its position, what `torchcts check-manifest` would print, and
//! the per-level accounting `torchcts show-skips` would report.

use super::output::{errln, outln};
use super::skips::{accounting_terms, device_json, inventory_json, levels_json};
use super::{analyze_file, AccountingArgs, ReportFormat, SelectedInventory};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use torchcts_core::accounting_view::{self as av, Inventory, LevelSelection};
use torchcts_core::value::Dict;
use torchcts_core::{Analysis, Origin, PositionEncoding, Severity};

const ANALYZE_HELP: &str = concat!(
    "\
Output (--format):
  text  `== Diagnostics`: every finding as FILE:LINE:COLUMN: SEVERITY [SOURCE CODE] message,
        by position (source `torchcts` for check-manifest's, `torchcts-lsp` for ours).
        `== torchcts check-manifest would print`: its lines and exit code.
        `== Accounting`: per level, the tests that run, are filtered, and run up to that
        level; the selected level is marked; then show-skips' totals at the selection.
  json  {file, exit_code, check_manifest_output, findings} as `check --format json`, plus
        accounting: {inventory, device, selection, collected, deselected, included,
        executable, record_count, levels: [{level, collected, run, filtered, run_cumulative}],
        not_modelled, not_static} (null when the manifest does not evaluate).

",
    accounting_terms!(),
    "

Exit code: check-manifest's (0 valid, 1 errors or an unreadable file); 2 for a usage error."
);

#[derive(clap::Args, Debug)]
#[command(
    about = "Every diagnostic with its position, the check-manifest output and the per-level accounting",
    after_help = ANALYZE_HELP
)]
pub struct AnalyzeArgs {
    /// The manifest
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    #[command(flatten)]
    pub accounting: AccountingArgs,
    /// Output format
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
}

pub fn run(args: &AnalyzeArgs) -> ExitCode {
    let path = &args.file;
    let inventory = match args.accounting.load_inventory(path) {
        Ok(inventory) => inventory,
        Err(message) => {
            errln!("torchcts-lsp analyze: {message}");
            return ExitCode::from(1);
        }
    };
    let analysis = match analyze_file(path, Some(&inventory)) {
        Ok(analysis) => analysis,
        Err(message) => {
            errln!("{message}");
            return ExitCode::from(1);
        }
    };
    let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict());
    let accounting = manifest.map(|manifest| account(&inventory, manifest, &args.accounting, path));
    match args.format {
        ReportFormat::Text => {
            print_diagnostics(path, &analysis);
            if let Some((acc, manifest)) = accounting.as_ref().zip(manifest) {
                print_accounting(&inventory, acc, manifest, args.accounting.levels.selection().is_some());
            }
        }
        ReportFormat::Json => {
            let accounting = match accounting.as_ref().zip(manifest) {
                Some((acc, manifest)) => accounting_json(&inventory, acc, manifest),
                None => Value::Null,
            };
            let report = AnalyzeReport { accounting, check: super::check::report(path, &analysis) };
            super::output::write_json_stdout(&report);
        }
    }
    let code = analysis.check.exit_code();
    drop(accounting);
    super::check::left_to_the_exit(analysis);
    ExitCode::from(code as u8)
}

/// `analyze --format json`: `check --format json`'s object with `accounting` added (first:
/// keys in alphabetical order, as the reports print them).
#[derive(serde::Serialize)]
struct AnalyzeReport<'a> {
    accounting: Value,
    #[serde(flatten)]
    check: super::check::CheckReport<'a>,
}

/// The accounting for the flags; without level flags, the manifest's `semantic_level`
/// (level 3 when it is invalid: the check-manifest part reports that).
fn account<'i>(
    inventory: &'i Inventory,
    manifest: &Dict,
    flags: &AccountingArgs,
    path: &Path,
) -> accounting::Accounting<'i> {
    let mut facts = av::facts(manifest);
    facts.layout = flags.run_layout(path);
    let device = facts.resolve_device(flags.device.as_deref());
    let selection = flags
        .levels
        .selection()
        .unwrap_or_else(|| LevelSelection::from_manifest(&facts).unwrap_or(LevelSelection::Cumulative(3)));
    accounting::account(inventory, &facts, &device, selection)
}

fn print_diagnostics(path: &Path, analysis: &Analysis) {
    outln!("== Diagnostics for {} ({} findings)", path.display(), analysis.findings.len());
    for f in super::check::sorted_findings(analysis) {
        let pos = analysis.line_index.position(&analysis.text, f.span.start, PositionEncoding::Utf32);
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
        outln!("{}:{}:{}: {severity} [{source} {}] {}", path.display(), pos.line + 1, pos.col + 1, f.code, f.message);
    }
    outln!();
    outln!("== torchcts check-manifest would print (exit code {})", analysis.check.exit_code());
    for (_, line) in analysis.check.lines() {
        outln!("{line}");
    }
}

/// The per-level accounting `torchcts show-skips` would report.
fn print_accounting(inventory: &SelectedInventory, acc: &accounting::Accounting, manifest: &Dict, level_flag: bool) {
    outln!();
    outln!(
        "== Accounting on `{}` (counts for {}; {}), like `torchcts show-skips`",
        acc.device.device,
        inventory.label(),
        acc.selection.label()
    );
    if let Some(note) = inventory.note() {
        outln!("note: {note}");
    }
    outln!("{:>5} {:>9} {:>9} {:>15}", "level", "run", "filtered", "run up to here");
    let selected = usize::from(acc.selection.max_level());
    let mark = if level_flag { "  <- requested" } else { "  <- semantic_level" };
    let mut cumulative = 0;
    for (i, l) in acc.levels.iter().enumerate() {
        cumulative += l.runnable;
        let mark = if i + 1 == selected { mark } else { "" };
        outln!("{:>5} {:>9} {:>9} {:>15}{mark}", i + 1, l.runnable, l.filtered, cumulative);
    }
    outln!(
        "show-skips at this level: {}/{} tests collected ({} deselected), {} not-run records",
        acc.included,
        acc.collected,
        acc.deselected,
        acc.record_count
    );
    if acc.device.assumed {
        outln!(
            "note: `{}` is not a device the inventory recorded; counted as a PrivateUse1 backend",
            acc.device.device
        );
    }
    for n in acc.not_modelled.iter().chain(av::unknown_inputs(manifest).iter()) {
        outln!("note: {n}");
    }
}

fn accounting_json(inventory: &SelectedInventory, acc: &accounting::Accounting, manifest: &Dict) -> Value {
    json!({
        "inventory": inventory_json(inventory),
        "device": device_json(acc),
        "selection": acc.selection.label(),
        "collected": acc.collected,
        "deselected": acc.deselected,
        "included": acc.included,
        "executable": acc.executable,
        "record_count": acc.record_count,
        "levels": levels_json(acc),
        "not_modelled": acc.not_modelled,
        "not_static": av::unknown_inputs(manifest),
    })
}
