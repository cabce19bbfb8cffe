//! `torchcts-lsp analyze FILE`: everything the editor would show — every diagnostic (the
//! real tool's and ours) with its position, what `torchcts check-manifest` would print, and
//! the per-level accounting `torchcts show-skips` would report.

use super::formats::{self, Reported};
use super::inputs::{Input, InputArgs};
use super::output::{errln, outln, plural};
use super::skips::{accounting_terms, device_json, inventory_json, levels_json};
use super::{AccountingArgs, OutputArgs, SelectedInventory};
use crate::host::project_config::ProjectConfig;
use serde_json::{json, Value};
use std::path::Path;
use std::process::ExitCode;
use torchcts_core::accounting_view::{self as av, Inventory, LevelSelection};
use torchcts_core::check::CheckOutcome;
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
        `== Evidence` (with --results DIR or pyproject.toml `results`): per entry with
        records, what its tests did in the newest runs on the device, and its failures.
  github, sarif  The findings as `check --format github|sarif` writes them.
  json  {file, exit_code, check_manifest_output, findings} as `check --format json`, plus
        accounting: {inventory, device, selection, collected, deselected, included,
        executable, record_count, levels: [{level, collected, run, filtered, run_cumulative}],
        not_modelled, not_static} (null when the manifest does not evaluate); with
        --results, evidence: {device, runs, entries: [{kind, key_path, claimed, label,
        device, line, tally: {tests, passed, failed, errored, skipped, no_record, failures,
        newest, newest_tested_at, oldest_tested_at, newest_age_seconds, partial,
        torch_versions}}]}.

",
    accounting_terms!(),
    "

Several FILEs or a DIR: as `check` (one block per file under `== PATH`, json one object
per line, the highest exit code). pyproject.toml [tool.torchcts-lsp] gives the defaults of
--device, --inventory, the level and the Python environment (`torchcts-lsp config`).

Exit code: check-manifest's (0 valid, 1 errors or an unreadable file); 2 for a usage error."
);

#[derive(clap::Args, Debug)]
// Our own usage line: after a typo clap would print the option it suggests as if required.
#[command(
    override_usage = "torchcts-lsp analyze [OPTIONS] [FILE|DIR|-]...",
    about = "Every diagnostic with its position, the check-manifest output and the per-level accounting",
    after_help = ANALYZE_HELP
)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    #[command(flatten)]
    pub accounting: AccountingArgs,
    /// Output format
    #[arg(long, value_enum, default_value_t = AnalyzeFormat::Text)]
    pub format: AnalyzeFormat,
    #[command(flatten)]
    pub results: super::evidence::ResultsArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `analyze --format`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalyzeFormat {
    /// for people
    Text,
    /// everything, for programs
    Json,
    /// GitHub Actions annotations, one per finding
    Github,
    /// SARIF 2.1.0 (GitHub code scanning), one log for every file
    Sarif,
}

pub fn run(args: &AnalyzeArgs) -> ExitCode {
    let given = match args.inputs.expand("manifest.py") {
        Ok(inputs) => inputs,
        Err(e) => return super::input_error("analyze", e),
    };
    let configs = match super::configs_for("analyze", &given.inputs) {
        Ok(configs) => configs,
        Err(code) => return code,
    };
    let mut worst = 0u8;
    let mut kept: Vec<(String, Result<Analysis, String>)> = Vec::new();
    for (input, config) in given.inputs.iter().zip(&configs) {
        let flags = args.accounting.for_manifest(config.as_ref());
        let (code, outcome) = one(args, &flags, input, config.as_ref(), given.single);
        worst = worst.max(code);
        match outcome {
            Some(outcome) if args.format == AnalyzeFormat::Sarif => kept.push((input.shown(), outcome)),
            Some(Ok(analysis)) => super::check::left_to_the_exit(analysis),
            _ => {}
        }
    }
    if args.format == AnalyzeFormat::Sarif {
        let reported: Vec<Reported> = kept
            .iter()
            .map(|(path, outcome)| Reported { path: path.clone(), outcome: outcome.as_ref().map_err(String::as_str) })
            .collect();
        super::output::write_json_stdout(&formats::sarif(&reported));
    }
    ExitCode::from(worst)
}

/// One manifest: its report printed (kept for SARIF), its exit code.
fn one(
    args: &AnalyzeArgs,
    flags: &AccountingArgs,
    input: &Input,
    config: Option<&ProjectConfig>,
    single: bool,
) -> (u8, Option<Result<Analysis, String>>) {
    let path = &input.path;
    let shown = input.shown();
    if !single && args.format == AnalyzeFormat::Text {
        outln!("== {shown}");
    }
    let failed = |message: String| {
        match args.format {
            AnalyzeFormat::Json if !single => super::output::write_json_line_stdout(&json!({
                "error": message, "exit_code": 1, "file": shown,
            })),
            AnalyzeFormat::Github => {
                formats::print_annotations(&Reported { path: shown.clone(), outcome: Err(&message) })
            }
            _ => {}
        }
        errln!("{message}");
        if let Some(hint) = super::path_hint(path).filter(|_| !input.stdin) {
            errln!("{hint}");
        }
        (1, (args.format == AnalyzeFormat::Sarif).then_some(Err(message.clone())))
    };
    let inventory = match flags.load_inventory(path) {
        Ok(inventory) => inventory,
        Err(message) => return failed(format!("torchcts-lsp analyze: {message}")),
    };
    let python_line = flags.regex_python(path).1;
    let surroundings = flags.surroundings(path, config);
    let mut analysis = match super::analyze_input(input, Some(&inventory), &surroundings) {
        Ok((_, analysis)) => analysis,
        Err(message) => return failed(message),
    };
    let evidence =
        super::evidence::apply(&args.results, input, config, flags, &mut analysis, Some(&inventory), &surroundings);
    super::ignore_configured(&mut analysis, &surroundings, config);
    let code = analysis.check.exit_code() as u8;
    match args.format {
        AnalyzeFormat::Github => {
            formats::print_annotations(&Reported { path: shown, outcome: Ok(&analysis) });
            return (code, Some(Ok(analysis)));
        }
        AnalyzeFormat::Sarif => return (code, Some(Ok(analysis))),
        _ => {}
    }
    let no_accounting = why_no_accounting(&analysis);
    let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).filter(|_| no_accounting.is_none());
    let ledger = super::project_ledger(path, &inventory);
    let project_ledger = ledger.clone().unwrap_or_default();
    let accounting = manifest.map(|manifest| account(&inventory, manifest, flags, path, project_ledger));
    match args.format {
        AnalyzeFormat::Text => {
            print_diagnostics(path, &analysis, &python_line);
            if let Err(problem) = &ledger {
                // torchcts refuses the project's ledger: show-skips and run stop there.
                outln!("== The project's known-segfault ledger");
                outln!("{}", problem.located());
                outln!();
            }
            if let Some((acc, manifest)) = accounting.as_ref().zip(manifest) {
                let default = match (manifest.get("semantic_level").is_some(), flags.default_level) {
                    (true, _) => LevelSource::Manifest,
                    (false, Some(_)) => LevelSource::Project,
                    (false, None) => LevelSource::Default,
                };
                print_accounting(&inventory, acc, manifest, flags.levels.selection().is_some(), default);
            } else if let Some(why) = &no_accounting {
                outln!();
                outln!("== No accounting: {why}");
            }
            if let Some(evidence) = &evidence {
                print_evidence(&analysis, evidence);
            }
        }
        _ => {
            let accounting = match accounting.as_ref().zip(manifest) {
                Some((acc, manifest)) => accounting_json(&inventory, acc, manifest),
                None => Value::Null,
            };
            let report = AnalyzeReport {
                accounting,
                evidence: evidence.as_ref().map(evidence_json),
                no_accounting: no_accounting.as_deref(),
                check: super::check::report(path, &analysis),
            };
            if single {
                super::output::write_json_stdout(&report);
            } else {
                super::output::write_json_line_stdout(&report);
            }
        }
    }
    drop(accounting);
    (code, Some(Ok(analysis)))
}

/// Where the selected level comes from when no level flag is given.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LevelSource {
    Manifest,
    Project,
    Default,
}

/// `analyze --format json`: `check --format json`'s object with `accounting` added (first:
/// keys in alphabetical order, as the reports print them).
#[derive(serde::Serialize)]
struct AnalyzeReport<'a> {
    accounting: Value,
    /// With `--results`: each entry's tests' records on the device.
    #[serde(skip_serializing_if = "Option::is_none")]
    evidence: Option<Value>,
    /// Why `accounting` is null: the manifest does not load.
    #[serde(skip_serializing_if = "Option::is_none")]
    no_accounting: Option<&'a str>,
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
    project_ledger: accounting::ledger::ProjectLedger,
) -> accounting::Accounting<'i> {
    let mut facts = av::facts(manifest);
    facts.layout = flags.run_layout(path);
    facts.python = flags.regex_python(path).0;
    facts.project_ledger = project_ledger;
    let device = facts.resolve_device(flags.device.as_deref());
    let selection = flags
        .levels
        .selection()
        .unwrap_or_else(|| flags.default_selection(&facts).unwrap_or(LevelSelection::Cumulative(3)));
    accounting::account(inventory, &facts, &device, selection)
}

/// The diagnostics, check-manifest's output, and `python_line` (which Python judged the
/// regexes) where that Python's version can change an answer, as in `check`.
fn print_diagnostics(path: &Path, analysis: &Analysis, python_line: &str) {
    let count = analysis.findings.len();
    outln!("== Diagnostics for {} ({count} {})", path.display(), plural(count, "finding", "findings"));
    for f in super::places::sorted_findings(analysis) {
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
    for (_, line) in analysis.check_lines() {
        outln!("{line}");
    }
    if super::regex_note::answer_depends_on_python(analysis) {
        outln!("note: {python_line}");
    }
}

/// Why a manifest gets no accounting: show-skips collects only with a manifest that loads.
fn why_no_accounting(analysis: &Analysis) -> Option<String> {
    match &analysis.check {
        CheckOutcome::Validated { .. } => None,
        CheckOutcome::ParseFailed { .. } => Some(
            "the manifest does not load (see check-manifest above); torchcts show-skips would stop at the same error"
                .into(),
        ),
        CheckOutcome::NotADict => {
            Some("the file defines no `manifest` dict; torchcts show-skips would stop there".into())
        }
        CheckOutcome::NotStatic { reason } => {
            Some(format!("`manifest` cannot be evaluated without running Python ({reason}), so its counts are unknown"))
        }
        CheckOutcome::Exited { status, .. } => Some(format!(
            "loading the manifest calls sys.exit (status {status}); torchcts show-skips would end there too"
        )),
        CheckOutcome::Crashed { .. } => Some(
            "validate_manifest raises on this manifest (see check-manifest above); torchcts show-skips would too"
                .into(),
        ),
    }
}

/// The per-level accounting `torchcts show-skips` would report, every number named.
fn print_accounting(
    inventory: &SelectedInventory,
    acc: &accounting::Accounting,
    manifest: &Dict,
    level_flag: bool,
    source: LevelSource,
) {
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
    outln!("{:>5} {:>9} {:>9} {:>9} {:>15}", "level", "collected", "run", "filtered", "run up to here");
    let selected = usize::from(acc.selection.max_level());
    let mark = match (level_flag, source) {
        (true, _) => "  <- requested",
        (false, LevelSource::Manifest) => "  <- semantic_level",
        (false, LevelSource::Project) => "  <- level of pyproject.toml [tool.torchcts-lsp] (no semantic_level)",
        (false, LevelSource::Default) => "  <- default level 3 (no semantic_level)",
    };
    let mut cumulative = 0;
    for (i, l) in acc.levels.iter().enumerate() {
        cumulative += l.runnable;
        let mark = if i + 1 == selected { mark } else { "" };
        outln!("{:>5} {:>9} {:>9} {:>9} {:>15}{mark}", i + 1, l.collected, l.runnable, l.filtered, cumulative);
    }
    outln!("  collected: the level's tests pytest collects on the device; run: those that execute when");
    outln!("  the level is selected; filtered: those that never execute on this manifest (a dtype,");
    outln!("  capability, skip_ops entry or device fact), plus OpInfo checks recorded without a test of");
    outln!("  their own (at level 2), so run + filtered can exceed collected; run up to here: levels 1..N.");
    outln!(
        "show-skips at this level: {}/{} tests collected ({} deselected); of the {} selected, {} execute and {} report as skipped; {} not-run {}",
        acc.included,
        acc.collected,
        acc.deselected,
        acc.included,
        acc.executable,
        acc.included.saturating_sub(acc.executable),
        acc.record_count,
        plural(acc.record_count, "record", "records")
    );
    if acc.device.assumed {
        outln!("note: {}", super::assumed_device_note(inventory, &acc.device.device));
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

/// `== Evidence`: per entry with records, its line and lens text.
fn print_evidence(analysis: &Analysis, evidence: &super::evidence::Evidence) {
    outln!();
    outln!(
        "== Evidence on `{}` ({} {} with records in the results folders)",
        evidence.device,
        evidence.runs,
        plural(evidence.runs, "run", "runs")
    );
    let switch = |d: &str| format!("pass `--device {d}`");
    if let Some(note) =
        crate::host::evidence::other_devices_note(&evidence.device, evidence.runs, &evidence.other_devices, switch)
    {
        outln!("Note: {note}");
    }
    for e in &evidence.entries {
        if !e.tally.any() {
            continue;
        }
        let pos = analysis.line_index.position(&analysis.text, e.entry.span.start, PositionEncoding::Utf32);
        outln!("{:>5}  {} ({}): {}", pos.line + 1, e.entry.key_path.join(" / "), e.label, e.line());
        for f in e.tally.failures.iter().take(3) {
            let status = f.status.record_word();
            outln!("         {status} {}: {}", f.node_id, f.error.as_deref().unwrap_or("(no message)"));
        }
        if e.tally.failures.len() > 3 {
            outln!("         ... and {} more", e.tally.failures.len() - 3);
        }
    }
}

/// `evidence` of `analyze --format json`: {device, runs, entries: [{kind, key_path, claimed,
/// label, device, line, tally}]}, every entry (records or not).
fn evidence_json(evidence: &super::evidence::Evidence) -> Value {
    let entries: Vec<Value> = evidence
        .entries
        .iter()
        .map(|e| {
            let mut value = serde_json::to_value(e).unwrap_or_default();
            value["line"] = json!(e.line());
            value
        })
        .collect();
    json!({"device": evidence.device, "runs": evidence.runs, "other_devices": evidence.other_devices, "entries": entries})
}
