//! `torchcts-lsp diff OLD NEW` (or `diff --against REV [FILE]`): which tests a manifest change
//! makes start and stop running, per level, grouped by the manifest entry that causes them and
//! by reason. Both versions are evaluated statically and accounted from the inventory
//! (`torchcts_core::review_diff`); `--against` reads the committed version with `git show`.

use super::output::{errln, out};
use super::{read_manifest, AccountingArgs};
use std::path::PathBuf;
use std::process::ExitCode;
use torchcts_core::accounting_view::ManifestFacts;
use torchcts_core::review_diff::{self, ReviewOptions};

const DIFF_HELP: &str = "\
Output (--format):
  text      a summary line, tests that run before -> after, then per level the groups
            (manifest entry [reason]: count) with their first --show node ids, and the
            change of the not-run records per reason.
  markdown  a pull-request comment: the summary line in bold, a table per level, the node
            ids of each group in a collapsed <details> list (docs/review-diff.md has a
            GitHub Actions step that posts it).
  json      everything, every node id: {device, old_selection, new_selection, summary,
            old_running, new_running, started, stopped, changes: [{cause, label, started,
            stopped}], levels: [{level, started, stopped, groups: [{change, cause, label,
            reason, count, nodes}], reason_deltas}], reason_deltas}.

A test that stops running is attributed to what filters it in NEW (a dtype entry, a
capability, a skip_ops entry, semantic_level, a hardware or resource limit); a test that
starts running to what filtered it in OLD. A test that one version does not generate at all
has the reason `not_collected` and its dtype as cause.

A manifest that REV does not hold (added by the change) is new: with --against it is
compared with nothing, named `nothing (new since REV)`, so every test it runs starts
(json: \"old\": {\"file\": null, \"absent_at\": REV}); a REV that is not a commit is an error.

Levels: --level/--level-exact/--level-range apply to both versions; without them each
version counts its own semantic_level (so a change of semantic_level shows), else the
project's `level` (pyproject.toml [tool.torchcts-lsp]), else 3.
Device: --device, else the project's `device`, else NEW's device_name (auto: cpu), for both
versions. The project configuration is NEW's (`torchcts-lsp config NEW` shows it).

Exit code: 0; 1 with --fail-on-removed when a test stops running; 2 for a usage error, a
manifest that cannot be read or evaluated, or a git error.";

/// `--format` of `diff`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    /// for people
    Text,
    /// everything, for programs
    Json,
    /// a pull-request comment
    Markdown,
}

#[derive(clap::Args, Debug)]
// Our own usage line: after a typo clap would print the option it suggests as if required.
#[command(
    override_usage = "torchcts-lsp diff [OPTIONS] OLD NEW\n       torchcts-lsp diff [OPTIONS] --against REV [FILE]",
    about = "Which tests a manifest change makes start and stop running, per level and manifest entry",
    after_help = DIFF_HELP
)]
pub struct DiffArgs {
    /// OLD and NEW manifests; with --against, only the manifest [default: ./manifest.py]
    #[arg(value_name = "FILE", num_args = 0..=2)]
    pub files: Vec<PathBuf>,
    /// Compare the manifest with its committed version at REV (HEAD, main, ...), read with `git show`
    #[arg(long, value_name = "REV")]
    pub against: Option<String>,
    #[command(flatten)]
    pub accounting: AccountingArgs,
    /// Output format
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    pub format: DiffFormat,
    /// Exit with 1 when a test stops running (a CI gate)
    #[arg(long)]
    pub fail_on_removed: bool,
    /// Node ids listed per group in text and markdown (json lists all)
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub show: usize,
    #[command(flatten)]
    pub output: super::OutputArgs,
}

/// Which inventory the counts are for, with its note (the torch it stands in for).
fn inventory_label(inventory: &super::SelectedInventory) -> String {
    format!("{}{}", inventory.label(), inventory.note().map(|n| format!(" ({n})")).unwrap_or_default())
}

fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    errln!("torchcts-lsp diff: {message}");
    ExitCode::from(2)
}

/// What NEW is compared with: a manifest's (name, text), or nothing (a manifest that
/// `--against REV` does not hold: new in the change).
enum Old {
    Text(String, String),
    Absent { rev: String },
}

pub fn run(args: &DiffArgs) -> ExitCode {
    let (old, new_path) = match (&args.against, args.files.as_slice()) {
        (Some(rev), [] | [_]) => {
            let path = args.files.first().cloned().unwrap_or_else(|| PathBuf::from("manifest.py"));
            match runner::git::committed_text_if_any(&path, rev) {
                Ok(Some(text)) => (Old::Text(format!("{rev}:{}", path.display()), text), path),
                Ok(None) => (Old::Absent { rev: rev.clone() }, path),
                Err(e) => return usage_error(format!("cannot read {} at {rev}: {e}", path.display())),
            }
        }
        (Some(_), _) => return usage_error("with --against, give one manifest (the working version)"),
        (None, [old, new]) => match read_manifest(old) {
            Ok(text) => (Old::Text(old.display().to_string(), text), new.clone()),
            Err(e) => return usage_error(e),
        },
        (None, _) => return usage_error("give OLD and NEW manifests, or --against REV [FILE]"),
    };
    let new = match read_manifest(&new_path) {
        Ok(text) => (new_path.display().to_string(), text),
        Err(e) => return usage_error(e),
    };
    // The working version's project configuration, for both versions.
    let config = match super::config_for_manifest("diff", &new_path) {
        Ok(config) => config,
        Err(code) => return code,
    };
    let accounting = args.accounting.for_manifest(config.as_ref());
    let inventory = match accounting.load_inventory(&new_path) {
        Ok(inventory) => inventory,
        Err(e) => return usage_error(e),
    };
    let (old_name, reviewed) = match &old {
        Old::Text(name, text) => {
            (name.clone(), review_texts((name, text), (&new.0, &new.1), &new_path, &accounting, &inventory))
        }
        Old::Absent { rev } => (
            format!("nothing (new since {rev})"),
            review_new_text((&new.0, &new.1), &new_path, &accounting, &inventory),
        ),
    };
    let Reviewed { review, old: old_side, new: new_side } = match reviewed {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    let absent_note = match &old {
        Old::Absent { rev } => Some(format!(
            "{} is not in {rev}: a new manifest, compared with no manifest at all (every test it runs starts)",
            new.0
        )),
        Old::Text(..) => None,
    };
    match args.format {
        DiffFormat::Json => {
            let mut report = review_diff::to_json(&review);
            report["old"] = match &old {
                Old::Text(name, _) => serde_json::json!({"file": name, "not_static": old_side.not_static}),
                Old::Absent { rev } => serde_json::json!({"file": null, "absent_at": rev, "not_static": []}),
            };
            report["new"] = serde_json::json!({"file": new.0, "not_static": new_side.not_static});
            report["inventory"] = super::skips::inventory_json(&inventory);
            super::output::write_json_stdout(&report);
        }
        DiffFormat::Markdown => {
            out!("{}", review_diff::render_markdown(&review, &old_name, &new.0, args.show));
            let new_manifest = match &old {
                Old::Absent { rev } => format!(
                    "A new manifest: `{}` is not in {rev}, so it is compared with no manifest at all (every test it runs starts). ",
                    new.0
                ),
                Old::Text(..) => String::new(),
            };
            out!("\n<sub>{new_manifest}Counts for {}.</sub>\n", inventory_label(&inventory));
        }
        DiffFormat::Text => {
            out!("{}", review_diff::render_text(&review, &old_name, &new.0, args.show));
            if let Some(note) = absent_note {
                errln!("Note: {note}");
            }
            errln!("Note: counts for {}", inventory_label(&inventory));
            if let Some(note) = accounting.layout_note(&new_path) {
                errln!("Note: {note}");
            }
            for (name, side) in [(&old_name, &old_side), (&new.0, &new_side)] {
                for n in &side.not_static {
                    errln!("Note: {name}: {n}; counted as far as it is known");
                }
            }
            let old_text = match &old {
                Old::Text(_, text) => Some(text.as_str()),
                Old::Absent { .. } => None,
            };
            python_note(args, &new_path, [(&old_name, old_text), (&new.0, Some(new.1.as_str()))]);
        }
    }
    if args.fail_on_removed && review.diff.stopped_count() > 0 {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// Which Python's `re` judged the regexes (both versions are counted with it), said as
/// `check` says it: only where a version's regexes are judged differently by CPython 3.10-3.13.
fn python_note(args: &DiffArgs, new_path: &std::path::Path, versions: [(&String, Option<&str>); 2]) {
    let python = args.accounting.surroundings(new_path, None).python;
    let environment = &args.accounting.environment(new_path).found;
    let mut notes = super::regex_note::PythonNotes::default();
    for (name, text) in versions {
        let analysed = text.map(|t| crate::host::Surroundings::bare("manifest.py", python).analyze_whole(t, None));
        if analysed.is_some_and(|a| super::regex_note::answer_depends_on_python(&a)) {
            notes.add(name, environment);
        }
    }
    notes.print();
}

/// A review and its two sides.
pub struct Reviewed {
    pub review: review_diff::Review,
    pub old: review_diff::Side,
    pub new: review_diff::Side,
}

/// Both texts evaluated and accounted as a run in the working version's folder would name
/// tests, and compared. `Err`: a version that cannot be evaluated, or no difference computed.
pub fn review_texts(
    old: (&str, &str),
    new: (&str, &str),
    new_path: &std::path::Path,
    accounting: &AccountingArgs,
    inventory: &super::SelectedInventory,
) -> Result<Reviewed, String> {
    let folder = Folder::of(new_path, accounting);
    let old_side = folder.side(old)?;
    let new_side = folder.side(new)?;
    let options = ReviewOptions { device: accounting.device.clone(), selection: accounting.levels.selection() };
    let review = review_diff::review(inventory, &old_side.facts, &new_side.facts, &options)?;
    if let Some(problem) = &review.diff.problem {
        return Err(problem.clone());
    }
    Ok(Reviewed { review, old: old_side, new: new_side })
}

/// A new manifest (no old version) reviewed against nothing: the old side collects and runs
/// nothing, so every test the manifest runs starts, `not_collected`, attributed to its dtype
/// entry (or to the new manifest itself for a test of no dtype). Its not-run records are
/// left out (each would read as a change from nothing).
pub fn review_new_text(
    new: (&str, &str),
    new_path: &std::path::Path,
    accounting: &AccountingArgs,
    inventory: &super::SelectedInventory,
) -> Result<Reviewed, String> {
    let new_side = Folder::of(new_path, accounting).side(new)?;
    let facts = &new_side.facts;
    let device = facts.resolve_device(accounting.device.as_deref());
    let selection = match accounting.levels.selection() {
        Some(s) => s,
        None => accounting.default_selection(facts).map_err(|e| format!("{}: {e}", new.0))?,
    };
    let new_acc = accounting::account(inventory, facts, &device, selection);
    let nothing = accounting::diff::prepare_nothing(&new_acc);
    let no_manifest = ManifestFacts::default();
    let mut review = review_diff::review_prepared(&new_acc, &nothing, &no_manifest, &new_acc, facts);
    // Every record of the manifest would read as a change from nothing; `skips` lists them.
    review.diff.reason_deltas.clear();
    for level in &mut review.diff.levels {
        level.reason_deltas.clear();
    }
    for change in &mut review.changes {
        if change.cause == review_diff::Cause::GeneratedSet {
            change.label = "the new manifest".to_string();
        }
    }
    let old_side = review_diff::Side { facts: no_manifest, not_static: Vec::new() };
    Ok(Reviewed { review, old: old_side, new: new_side })
}

/// What the working version's folder decides for both versions: how a run there names
/// tests, and the Python whose `re` judges regexes.
struct Folder {
    layout: accounting::RunLayout,
    python: torchcts_core::regex_check::PythonVersion,
    /// The project's `level`, for a version without `semantic_level`.
    default_level: Option<u8>,
}

impl Folder {
    fn of(new_path: &std::path::Path, accounting: &AccountingArgs) -> Folder {
        Folder {
            layout: accounting.run_layout(new_path),
            python: accounting.regex_python(new_path).0,
            default_level: accounting.default_level,
        }
    }

    /// One version's text evaluated in this folder.
    fn side(&self, (name, text): (&str, &str)) -> Result<review_diff::Side, String> {
        let mut side = review_diff::side(text).map_err(|e| format!("{name}: {e}"))?;
        side.facts.layout = self.layout.clone();
        side.facts.python = self.python;
        if side.facts.semantic_level.is_none() {
            side.facts.semantic_level = self.default_level.map(|l| accounting::PyValue::Int(i64::from(l)));
        }
        Ok(side)
    }
}
