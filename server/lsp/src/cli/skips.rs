//! `torchcts-lsp skips [FILE] [--level N | --level-exact N | --level-range A:B] [--device D]
//! [--format text|json] [--inventory PATH]`: what `torchcts show-skips` reports, without
//! Python, from the embedded inventory (or another one).

use super::inputs::{Input, InputArgs};
use super::output::{errln, outln};
use super::{AccountingArgs, OutputArgs, ReportFormat, SelectedInventory};
use serde_json::{json, Value};
use std::path::Path;
use std::process::ExitCode;
use torchcts_core::accounting_view::{self as av, LevelSelection};

/// The words of the accounting, shared by `skips --help` and `analyze --help` (a macro:
/// `concat!` takes literals only).
macro_rules! accounting_terms {
    () => {
        "\
Terms:
  collected (M)   tests pytest collects for the device
  deselected (D)  collected tests removed before the run: above the requested levels, or
                  declined by the manifest (a dtype it does not list, a capability it
                  does not declare, an operator in skip_ops, ...)
  selected (K)    M - D, the tests pytest keeps (`included` in json); those with a record
                  report as skipped, the others run (`executable`)
  records         one per test that will not execute: the deselected ones, those pytest
                  keeps but skips (a dtype a dtype regex filters out or the operator does
                  not support, ...), and OpInfo checks recorded without a test of their
                  own: so records >= D
  run             per level: its tests that execute when that level is selected
  filtered        per level: its tests that do not execute whatever the level (the
                  manifest, skip_ops, device facts; pending OpInfo checks count at level 2)
  requested <= N  the selection: levels 1..N (--level N, else the manifest's
                  semantic_level, else 3); `requested == N` is --level-exact N,
                  `requested A-B` is --level-range A:B"
    };
}
pub(super) use accounting_terms;

const SKIPS_HELP: &str = concat!(
    "\
Output (--format):
  text  What `torchcts show-skips` prints after its banner: the NOT-RUN AUDIT (per-reason
        record counts, then every record in collection order: test id, reason, detail),
        then pytest's `collected M items / D deselected / K selected` and
        `K/M tests collected (D deselected)`. Lines starting with `Note:` (stderr) are
        ours: what the inventory cannot model for this manifest or device.
  json  {collected, deselected, included, executable, reason_counts, levels: [{level,
        collected, run, filtered, run_cumulative}], records: [{node_id, printed_id, reason,
        detail, level, deselected, live_device_dependent}], selection, device, inventory,
        not_modelled, not_static, problems}.

",
    accounting_terms!(),
    "

Several FILEs or a DIR: one report per file under `== PATH` (json: one object per line).
pyproject.toml [tool.torchcts-lsp] gives the defaults of --device, --inventory, the
level and the Python environment (`torchcts-lsp config`).

Exit code: 0; 1 if the manifest cannot be read or evaluated; 4 for an invalid
semantic_level (pytest's usage error, as show-skips); 2 for a usage error; with several
files, the highest."
);

#[derive(clap::Args, Debug)]
// Our own usage line: after a typo clap would print the option it suggests as if required.
#[command(
    override_usage = "torchcts-lsp skips [OPTIONS] [FILE|DIR|-]...",
    about = "What `torchcts show-skips` reports, from the inventory, without Python",
    after_help = SKIPS_HELP
)]
pub struct SkipsArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    #[command(flatten)]
    pub accounting: AccountingArgs,
    /// Output format
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: &SkipsArgs) -> ExitCode {
    let given = match args.inputs.expand("manifest.py") {
        Ok(inputs) => inputs,
        Err(e) => return super::input_error("skips", e),
    };
    let configs = match super::configs_for("skips", &given.inputs) {
        Ok(configs) => configs,
        Err(code) => return code,
    };
    let mut worst = 0u8;
    let mut python_notes = super::regex_note::PythonNotes::default();
    for (input, config) in given.inputs.iter().zip(&configs) {
        if !given.single && args.format == ReportFormat::Text {
            outln!("== {}", input.shown());
        }
        let flags = args.accounting.for_manifest(config.as_ref());
        let code = one(args, &flags, input, given.single, &mut python_notes);
        worst = worst.max(code);
    }
    // Which Python's `re` judged the regexes, once, as `check` says it.
    python_notes.print();
    ExitCode::from(worst)
}

/// One manifest's report; its exit code.
fn one(
    args: &SkipsArgs,
    flags: &AccountingArgs,
    input: &Input,
    single: bool,
    python_notes: &mut super::regex_note::PythonNotes,
) -> u8 {
    let path = &input.path;
    let failed = |message: String, code: u8| {
        if !single && args.format == ReportFormat::Json {
            super::output::write_json_line_stdout(&json!({"error": message, "exit_code": code, "file": input.shown()}));
        }
        errln!("{message}");
        code
    };
    let text = match super::read_input(input) {
        Ok(t) => t,
        Err(message) => {
            let code = failed(message, 1);
            if let Some(hint) = super::path_hint(path).filter(|_| !input.stdin) {
                errln!("{hint}");
            }
            return code;
        }
    };
    let inventory = match flags.load_inventory(path) {
        Ok(inventory) => inventory,
        Err(message) => return failed(format!("torchcts-lsp skips: {message}"), 1),
    };
    let surroundings = flags.surroundings(path, None);
    let python = surroundings.python;
    let analysis = surroundings.analyze_whole(&text, None);
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else {
        let lines: Vec<String> = analysis.check_lines().into_iter().map(|(_, line)| line).collect();
        return failed(lines.join("\n"), 1);
    };
    let mut facts = av::facts(manifest);
    facts.layout = flags.run_layout(path);
    facts.python = python;
    match super::project_ledger(path, &inventory) {
        Ok(ledger) => facts.project_ledger = ledger,
        // show-skips stops at start-up (pytest.exit, exit code 1).
        Err(problem) => {
            let code = failed(format!("Exit: {}", problem.message), 1);
            errln!("Note: {}", problem.located());
            return code;
        }
    }
    let selection = match flags.levels.selection() {
        Some(s) => s,
        None => match flags.default_selection(&facts) {
            Ok(s) => s,
            Err(e) => return failed(format!("ERROR: {e}"), 4),
        },
    };
    let device = facts.resolve_device(flags.device.as_deref());
    let acc = accounting::account(&inventory, &facts, &device, selection);
    let unknown = av::unknown_inputs(manifest);
    if args.format == ReportFormat::Json {
        let report = report_json(path, &inventory, &acc, selection, &unknown);
        if single {
            super::output::write_json_stdout(&report);
        } else {
            super::output::write_json_line_stdout(&report);
        }
    } else {
        // show-skips prints these at start-up, before its audit.
        for warning in super::ledger_expiry_warnings(&inventory, &acc.device.device, &facts) {
            errln!("Warning: {warning}");
        }
        super::output::write_text_stdout(|out| accounting::write_show_skips(&acc, out));
        errln!(
            "Note: counts for {}{}",
            inventory.label(),
            inventory.note().map(|n| format!(" ({n})")).unwrap_or_default()
        );
        if let Some(note) = args.accounting.layout_note(path) {
            errln!("Note: {note}");
        }
        for n in acc.not_modelled.iter().chain(unknown.iter()) {
            errln!("Note: {n}");
        }
        for p in &acc.problems {
            errln!("Note: {}", p.message);
        }
        if acc.live_device_dependent > 0 {
            errln!(
                "Note: {} records depend on the live device (availability, detected memory); counted as show-skips counts them without it",
                acc.live_device_dependent
            );
        }
        if acc.device.assumed {
            errln!("Note: {}", super::assumed_device_note(&inventory, &acc.device.device));
        }
        if super::regex_note::answer_depends_on_python(&analysis) {
            python_notes.add(&input.shown(), &flags.environment(path).found);
        }
    }
    0
}

pub fn report_json(
    path: &Path,
    inventory: &SelectedInventory,
    acc: &accounting::Accounting,
    selection: LevelSelection,
    unknown: &[String],
) -> Value {
    // Long regexes and values are listed once (`patterns`, `values`), not per record.
    let accounting::RecordsJson { records, patterns, values } = accounting::records_json(acc);
    let reason_counts: Vec<Value> =
        acc.reason_counts.iter().map(|(r, n)| json!({"reason": acc.reason_name(*r), "count": n})).collect();
    json!({
        "file": path.display().to_string(),
        "inventory": inventory_json(inventory),
        "device": device_json(acc),
        "selection": selection.label(),
        "collected": acc.collected,
        "deselected": acc.deselected,
        "included": acc.included,
        "executable": acc.executable,
        "reason_counts": reason_counts,
        "levels": levels_json(acc),
        "records": records,
        "patterns": patterns,
        "values": values,
        "not_modelled": acc.not_modelled,
        "live_device_dependent": acc.live_device_dependent,
        "not_static": unknown,
        "problems": acc.problems.iter().map(|p| p.message.clone()).collect::<Vec<_>>(),
    })
}

/// Which inventory the counts come from.
pub(super) fn inventory_json(inventory: &SelectedInventory) -> Value {
    json!({
        "torchcts": inventory.meta.torchcts_version,
        "torch": inventory.torch(),
        "extracted_with_torch": inventory.meta.torch_version,
        "extracted_at": inventory.meta.extracted_at,
        "note": inventory.note(),
    })
}

/// The device counted for, and whether its facts are assumed.
pub(super) fn device_json(acc: &accounting::Accounting) -> Value {
    json!({"name": acc.device.device, "class": acc.device.class, "assumed": acc.device.assumed})
}

/// Per level: collected, run, filtered, and run summed over the levels up to it.
pub(super) fn levels_json(acc: &accounting::Accounting) -> Vec<Value> {
    let mut cumulative = 0;
    acc.levels
        .iter()
        .map(|l| {
            cumulative += l.runnable;
            json!({"level": l.level, "collected": l.collected, "run": l.runnable, "filtered": l.filtered, "run_cumulative": cumulative})
        })
        .collect()
}
