//! `torchcts-lsp report FILE... [--results DIR...] [--level ...] [--device D] [--against REV]
//! [--format html|markdown|json] [-o PATH]`: the support record of each manifest: what it
//! claims, what the accounting runs and filters, and what the runs in its result folders
//! showed (`model.rs` builds it; `html.rs`, `markdown.rs` and `json.rs` render it).

mod html;
mod json;
mod markdown;
pub mod model;

use super::inputs::{Input, InputArgs};
use super::output::errln;
use super::{AccountingArgs, SelectedInventory};
use runner::evidence::{EvidenceIndex, Limits};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use torchcts_core::accounting_view as av;

const REPORT_HELP: &str = "\
The record (per manifest):
  the manifest, device, torch and torchcts releases of the inventory counted with, the
  level selection; per level a stacked bar of the tests that run and those filtered, by
  reason; an operator x dtype matrix (the dtype's claim, per cell the tests that run and
  what their newest records say: passed, failed, errored, crashed, known crash, skipped,
  no record; the tests
  filtered and why) with the tests of each cell listed; the capabilities declared and the
  tests each one's absence filters; skip_ops and what each removes; tolerance_overrides
  against torchcts' defaults; the runs the evidence comes from; with --against, the review
  diff. Counts are the accounting's: equal to `skips --format json`.

Evidence: the newest record of each test on the device, read from `results/` and
`.torchcts-lsp/results` beside the manifest, the project configuration's `results` and
every --results DIR (`torchcts run --results-dir`, an artifact downloaded from CI).

Output (--format):
  html      one self-contained page (inline CSS and SVG; a little inline script for the
            filter box; opens offline, requests nothing)
  markdown  the compact pull-request comment form
  json      everything, with per-test outcomes and per-run partial flags
With several manifests -o names a folder: one file per manifest, and for html an
index.html. Without -o the record goes to stdout (html: one manifest only).

The same inputs give the same bytes: no time of generation unless --timestamp. Error texts
are cut to their first line and carry no absolute paths of the machine that ran.

Exit code: 0; 1 if a manifest cannot be read or evaluated, 2 for a usage error.";

/// `--format` of `report`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordFormat {
    /// one self-contained page
    Html,
    /// a pull-request comment
    Markdown,
    /// everything, for programs
    Json,
}

impl RecordFormat {
    fn extension(self) -> &'static str {
        match self {
            RecordFormat::Html => "html",
            RecordFormat::Markdown => "md",
            RecordFormat::Json => "json",
        }
    }
}

#[derive(clap::Args, Debug)]
#[command(
    override_usage = "torchcts-lsp report [OPTIONS] [FILE|DIR|-]...",
    about = "The support record: what a manifest claims against what the runs showed",
    after_help = REPORT_HELP,
    mut_arg("results", |a| a.help(
        "A folder of torchcts run results (`torchcts run --results-dir`, an artifact downloaded from CI) \
         to read as evidence, repeatable; besides results/ and .torchcts-lsp/results beside the manifest \
         and pyproject.toml `results`"
    ).long_help(None))
)]
pub struct ReportArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    #[command(flatten)]
    pub accounting: AccountingArgs,
    #[command(flatten)]
    pub results: super::evidence::ResultsArgs,
    /// Add the review diff against the manifest's committed version at REV (read with `git show`)
    #[arg(long, value_name = "REV")]
    pub against: Option<String>,
    /// Output format
    #[arg(long, value_enum, default_value_t = RecordFormat::Html)]
    pub format: RecordFormat,
    /// Write the time of generation into the record (then two runs differ)
    #[arg(long)]
    pub timestamp: bool,
    /// The file to write; with several manifests, the folder to write one file each into
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,
}

pub fn run(args: &ReportArgs) -> ExitCode {
    let given = match args.inputs.expand("manifest.py") {
        Ok(inputs) => inputs,
        Err(e) => return super::input_error("report", e),
    };
    let configs = match super::configs_for("report", &given.inputs) {
        Ok(configs) => configs,
        Err(code) => return code,
    };
    let several = !given.single;
    if several && args.output.is_none() && args.format == RecordFormat::Html {
        errln!("torchcts-lsp report: several manifests make several pages: give -o FOLDER");
        return ExitCode::from(2);
    }
    let mut worst = 0u8;
    let mut written: Vec<(String, String, usize, usize, model::Tally)> = Vec::new();
    let mut json_lines = Vec::new();
    for (input, config) in given.inputs.iter().zip(&configs) {
        let flags = args.accounting.for_manifest(config.as_ref());
        let extra = args.results.folders(config.as_ref());
        let made = Made { against: args.against.as_deref(), timestamp: args.timestamp };
        let record = match build_record(made, &flags, input, &extra) {
            Ok(record) => record,
            Err(message) => {
                errln!("{message}");
                worst = worst.max(1);
                continue;
            }
        };
        let rendered = render(&record, args.format);
        match (&args.output, several) {
            (Some(folder), true) => {
                let name = file_name_for(&record.manifest, args.format);
                if let Err(e) = write_file(&folder.join(&name), &rendered) {
                    errln!("torchcts-lsp report: {e}");
                    return ExitCode::from(1);
                }
                written.push((
                    record.manifest.clone(),
                    name,
                    record.executable,
                    record.reason_counts.iter().map(|(_, n)| n).sum(),
                    record.evidence.tally.clone(),
                ));
            }
            (Some(file), false) => {
                if let Err(e) = write_file(file, &rendered) {
                    errln!("torchcts-lsp report: {e}");
                    return ExitCode::from(1);
                }
            }
            (None, _) if several && args.format == RecordFormat::Json => json_lines.push(json::to_json(&record)),
            (None, _) => super::output::out!("{rendered}"),
        }
    }
    for line in &json_lines {
        super::output::write_json_line_stdout(line);
    }
    if let (Some(folder), true, RecordFormat::Html) = (&args.output, several, args.format) {
        if let Err(e) = write_file(&folder.join("index.html"), &html::index(&written)) {
            errln!("torchcts-lsp report: {e}");
            return ExitCode::from(1);
        }
    }
    ExitCode::from(worst)
}

fn render(record: &model::SupportRecord, format: RecordFormat) -> String {
    match format {
        RecordFormat::Html => html::render(record),
        RecordFormat::Markdown => markdown::render(record),
        RecordFormat::Json => {
            let mut text = serde_json::to_string_pretty(&json::to_json(record)).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A manifest's file in the output folder: its relative path with separators as `_`.
fn file_name_for(manifest: &str, format: RecordFormat) -> String {
    let stem = manifest.trim_end_matches(".py").replace(['/', '\\', ':'], "_");
    let stem = stem.trim_start_matches(['.', '_']);
    format!("{}.{}", if stem.is_empty() { "manifest" } else { stem }, format.extension())
}

/// The record of one manifest, or the message why there is none.
/// What a record adds besides the accounting and the evidence.
#[derive(Clone, Copy, Default)]
pub struct Made<'a> {
    /// `--against REV`: the review diff against the committed version at REV.
    pub against: Option<&'a str>,
    /// `--timestamp`: the time of generation, and ages.
    pub timestamp: bool,
}

/// The support record of the manifest at `path` as `report --format json` prints it (the
/// Python API's `report`).
pub fn record_json(path: &Path, flags: &AccountingArgs, results: &[PathBuf]) -> Result<serde_json::Value, String> {
    let input = Input { path: path.to_path_buf(), stdin: false, empty_folder: false };
    let record = build_record(Made::default(), flags, &input, results)?;
    Ok(json::to_json(&record))
}

fn build_record(
    args: Made,
    flags: &AccountingArgs,
    input: &Input,
    extra_results: &[PathBuf],
) -> Result<model::SupportRecord, String> {
    let path = &input.path;
    let text = super::read_input(input)?;
    let inventory = flags.load_inventory(path).map_err(|e| format!("torchcts-lsp report: {e}"))?;
    let analysis = flags.surroundings(path, None).analyze_whole(&text, None);
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else {
        let lines: Vec<String> = analysis.check_lines().into_iter().map(|(_, line)| line).collect();
        return Err(format!("{}: {}", input.shown(), lines.join("\n")));
    };
    let mut facts = av::facts(manifest);
    facts.layout = flags.run_layout(path);
    // The project's known-segfault ledger, as `skips` and the run read it; a ledger torchcts
    // would refuse is said in the record and left out.
    let ledger_note = match super::project_ledger(path, &inventory) {
        Ok(ledger) => {
            facts.project_ledger = ledger;
            None
        }
        Err(problem) => Some(format!("not counted: {}", model::strip_paths(&problem.located()))),
    };
    let selection = match flags.levels.selection() {
        Some(s) => s,
        None => flags.default_selection(&facts).map_err(|e| format!("{}: ERROR: {e}", input.shown()))?,
    };
    let device = facts.resolve_device(flags.device.as_deref());
    let acc = accounting::account(&inventory, &facts, &device, selection);
    let manifest_path = if input.stdin && input.path.as_os_str() == super::inputs::STDIN_NAME {
        std::env::current_dir().unwrap_or_default().join("manifest.py")
    } else {
        path.clone()
    };
    let folders = crate::host::evidence::result_folders(&manifest_path, None, extra_results);
    let index = EvidenceIndex::read(&folders, &acc.device.device, Limits::default());
    let recorded = model::recorded_runs(&index, &folders);
    let sources = model::Sources {
        manifest_name: model::relative(path),
        text: &text,
        line_index: &analysis.line_index,
        manifest,
        facts: &facts,
        recorded: &recorded,
        normalize: &runner::evidence::normalize_node_id,
        inventory_label: (
            inventory.meta.torchcts_version.clone(),
            inventory.torch(),
            inventory.note().map(model::strip_paths),
        ),
    };
    let mut record = model::build(&acc, &sources);
    // Per entry, the core's attribution of tests to entries; ages only with --timestamp (the
    // clock would make two records of the same input differ).
    let lookup = crate::host::evidence::IndexLookup::new(&index);
    let now = args.timestamp.then(crate::host::clock::now_seconds);
    // The entries counted as the record counts (its levels, device and layout).
    let counted_as = av::CountedAs {
        device: flags.device.as_deref(),
        selection: Some(selection),
        layout: Some(&facts.layout),
        project_ledger: Some(&facts.project_ledger),
    };
    record.attach_entries(
        torchcts_core::evidence::entry_tallies_as(&inventory, &analysis, &counted_as, &lookup, now)
            .into_iter()
            .map(|mut e| {
                model::without_machine_paths(&mut e.tally, &folders);
                (analysis.line_index.line_of(e.entry.span.start) + 1, e)
            })
            .collect(),
    );
    record.notes.extend(ledger_note);
    let switch = |d: &str| format!("pass `--device {d}`");
    record.notes.extend(crate::host::evidence::other_devices_note(
        &acc.device.device,
        index.runs().len(),
        index.other_devices(),
        switch,
    ));
    record.notes.extend(acc.not_modelled.iter().chain(&av::unknown_inputs(manifest)).map(|n| model::strip_paths(n)));
    if let Some(rev) = args.against {
        record.review = Some(review_part(path, rev, &text, flags, &inventory)?);
    }
    if args.timestamp {
        record.generated_at = Some(torchcts_core::evidence::time::utc_minutes(crate::host::clock::now_seconds()));
    }
    Ok(record)
}

/// The review diff of the manifest's text against its version at `rev`.
fn review_part(
    path: &Path,
    rev: &str,
    text: &str,
    flags: &AccountingArgs,
    inventory: &SelectedInventory,
) -> Result<model::ReviewPart, String> {
    let old_text =
        runner::git::committed_text(path, rev).map_err(|e| format!("cannot read {} at {rev}: {e}", path.display()))?;
    let old_name = format!("{rev}:{}", model::relative(path));
    let new_name = model::relative(path);
    let review = super::diff::review_texts((&old_name, &old_text), (&new_name, text), path, flags, inventory)?;
    Ok(model::ReviewPart {
        against: rev.to_string(),
        summary: torchcts_core::review_diff::summary_line(&review.review),
        markdown: torchcts_core::review_diff::render_markdown(&review.review, &old_name, &new_name, 10),
        json: torchcts_core::review_diff::to_json(&review.review),
        changes: review.review.changes.iter().map(|c| (c.label.clone(), c.started, c.stopped)).collect(),
    })
}
