//! `torchcts-lsp diff OLD NEW` (or `diff --against REV [FILE]`): which tests a manifest change
//! makes start and stop running, per level, grouped by the manifest entry that causes them and
//! by reason. Both versions are evaluated statically and accounted from the inventory
//! (`torchcts_core::review_diff`); `--against` reads the committed version with `git show`.

use super::output::{errln, out};
use super::{read_manifest, AccountingArgs};
use std::path::PathBuf;
use std::process::ExitCode;
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

Levels: --level/--level-exact/--level-range apply to both versions; without them each
version counts its own semantic_level (so a change of semantic_level shows).
Device: --device, else NEW's device_name (auto: cpu), for both versions.

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

pub fn run(args: &DiffArgs) -> ExitCode {
    // (name, text) of both versions.
    let (old, new_path) = match (&args.against, args.files.as_slice()) {
        (Some(rev), [] | [_]) => {
            let path = args.files.first().cloned().unwrap_or_else(|| PathBuf::from("manifest.py"));
            match runner::git::committed_text(&path, rev) {
                Ok(text) => ((format!("{rev}:{}", path.display()), text), path),
                Err(e) => return usage_error(format!("cannot read {} at {rev}: {e}", path.display())),
            }
        }
        (Some(_), _) => return usage_error("with --against, give one manifest (the working version)"),
        (None, [old, new]) => match read_manifest(old) {
            Ok(text) => ((old.display().to_string(), text), new.clone()),
            Err(e) => return usage_error(e),
        },
        (None, _) => return usage_error("give OLD and NEW manifests, or --against REV [FILE]"),
    };
    let new = match read_manifest(&new_path) {
        Ok(text) => (new_path.display().to_string(), text),
        Err(e) => return usage_error(e),
    };
    let inventory = match args.accounting.load_inventory(&new_path) {
        Ok(inventory) => inventory,
        Err(e) => return usage_error(e),
    };
    let reviewed = match review_texts((&old.0, &old.1), (&new.0, &new.1), &new_path, &args.accounting, &inventory) {
        Ok(r) => r,
        Err(e) => return usage_error(e),
    };
    let Reviewed { review, old: old_side, new: new_side } = reviewed;
    match args.format {
        DiffFormat::Json => {
            let mut report = review_diff::to_json(&review);
            report["old"] = serde_json::json!({"file": old.0, "not_static": old_side.not_static});
            report["new"] = serde_json::json!({"file": new.0, "not_static": new_side.not_static});
            report["inventory"] = super::skips::inventory_json(&inventory);
            super::output::write_json_stdout(&report);
        }
        DiffFormat::Markdown => {
            out!("{}", review_diff::render_markdown(&review, &old.0, &new.0, args.show));
            out!("\n<sub>Counts for {}.</sub>\n", inventory_label(&inventory));
        }
        DiffFormat::Text => {
            out!("{}", review_diff::render_text(&review, &old.0, &new.0, args.show));
            errln!("Note: counts for {}", inventory_label(&inventory));
            if let Some(note) = args.accounting.layout_note(&new_path) {
                errln!("Note: {note}");
            }
            for (name, side) in [(&old.0, &old_side), (&new.0, &new_side)] {
                for n in &side.not_static {
                    errln!("Note: {name}: {n}; counted as far as it is known");
                }
            }
        }
    }
    if args.fail_on_removed && review.diff.stopped_count() > 0 {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
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
    let mut old_side = review_diff::side(old.1).map_err(|e| format!("{}: {e}", old.0))?;
    let mut new_side = review_diff::side(new.1).map_err(|e| format!("{}: {e}", new.0))?;
    let layout = accounting.run_layout(new_path);
    old_side.facts.layout = layout.clone();
    new_side.facts.layout = layout;
    let python = accounting.regex_python(new_path).0;
    old_side.facts.python = python;
    new_side.facts.python = python;
    let options = ReviewOptions { device: accounting.device.clone(), selection: accounting.levels.selection() };
    let review = review_diff::review(inventory, &old_side.facts, &new_side.facts, &options)?;
    if let Some(problem) = &review.diff.problem {
        return Err(problem.clone());
    }
    Ok(Reviewed { review, old: old_side, new: new_side })
}
