//! `torchcts-lsp run [FILE]`: runs the real `torchcts run` for a manifest, for CI and
//! terminals, through the same runner as the editor (`server/runner`): which tests (a level,
//! the tests a change starts running, the last failures, node ids), sharded across machines,
//! results into the project's results folder, a summary with passed / failed / errored /
//! crashed counts apart.

use super::output::{errln, out};
use super::{read_manifest, AccountingArgs};
use runner::evidence::{EvidenceIndex, EvidenceStatus};
use runner::{RunEvent, RunOutcome, RunRequest, RunStatus, Selection, TestOutcome};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

const RUN_HELP: &str = "\
Which tests (one of; default: the manifest's level, as `torchcts run --level N`):
  --level N        levels 1..=N (torchcts's own filters)
  --entry KEY_PATH the tests one manifest entry decides, as the editor's \"Run affected
                   tests\" on it: a dtype (supported_dtypes.torch.float16), a capability
                   while True (capabilities.autograd), a skip_ops item (skip_ops[2] or
                   skip_ops.cos: its tests run on a scratch copy without it)
  --against REV    the tests `torchcts-lsp diff --against REV` lists as starting to run
  --failed         the tests that failed, errored or crashed in the newest results of the
                   results folder (the re-run after fixing something)
  --node ID        these node ids (repeatable; relative to the torchcts package)
--shard K/N splits a node-id selection (--entry, --against, --failed, --node) by a stable hash of the
node id: N machines running shards 1/N..N/N run disjoint sets whose union is the selection.
Copy their results folders' `*_history/*.json` files into one folder to merge them (each
run's history file is its own record; `report` and the editor read them all).

Results go to <manifest folder>/.torchcts-lsp/results (--results DIR to change), where the
editor's hover, lenses and `report` read them. A run that dies (abort, segfault, out of
memory) keeps what completed and records the test that crashed there; run it again with
--isolate (each test in its own process) to contain it.

Progress goes to stderr on a terminal (torchcts's ERROR and crashes counted apart from FAIL).
Output (--format): text, a summary line and the node ids that did not pass; json: {status,
exit_code, passed, failed, errored, crashed, known_backend_crash, skipped, tests: [{nodeid,
outcome, message}], results_dir, crash_artifact, argv}. A known backend crash is a project
known_segfaults.json entry's record of a test torchcts did not run.

Exit code: 0 all passed; 1 a test failed or errored (or torchcts exited non-zero, as it does
for a known crash's record); 3 a test crashed or the run died (a crash, a time-out): the hint
on stderr is the command that runs the same tests again with --isolate; 2 a usage error or a
run that could not start (no torchcts, no Python).";

#[derive(clap::Args, Debug)]
#[command(about = "Run the real torchcts for a manifest (CI, terminals): FAIL, ERROR and crashes apart", after_help = RUN_HELP)]
pub struct RunArgs {
    /// The manifest [default: ./manifest.py]
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub accounting: AccountingArgs,
    /// The tests one entry decides (`capabilities.autograd`, `skip_ops[2]`), as the editor's run action
    #[arg(long, value_name = "KEY_PATH", conflicts_with_all = ["against", "failed", "node"])]
    pub entry: Option<String>,
    /// Only the tests that `diff --against REV` lists as starting to run
    #[arg(long, value_name = "REV", conflicts_with_all = ["failed", "node"])]
    pub against: Option<String>,
    /// Re-run the tests that failed, errored or crashed in the newest results
    #[arg(long, conflicts_with = "node")]
    pub failed: bool,
    /// A node id to run (repeatable)
    #[arg(long = "node", value_name = "ID")]
    pub node: Vec<String>,
    /// pytest-xdist worker processes (`-n N`)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub workers: u16,
    /// Each test in its own process (`--subprocess-per-test`): a crash is one test's record
    #[arg(long)]
    pub isolate: bool,
    /// Run shard K of N (1-based) of a node-id selection
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(u32, u32)>,
    /// The Python with torch and torchcts [default: $VIRTUAL_ENV, the manifest folder's .venv, python3]
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// The results folder [default: <manifest folder>/.torchcts-lsp/results]
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// Time limit for the whole run, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub timeout: u64,
    /// Output format
    #[arg(long, value_enum, default_value_t = super::ReportFormat::Text)]
    pub format: super::ReportFormat,
    #[command(flatten)]
    pub output: super::OutputArgs,
}

fn parse_shard(text: &str) -> Result<(u32, u32), String> {
    let (k, n) = text.split_once('/').ok_or("expected K/N, e.g. 1/4")?;
    let (k, n): (u32, u32) =
        (k.trim().parse().map_err(|_| "K is not a number")?, n.trim().parse().map_err(|_| "N is not a number")?);
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k}/{n}: K must be in 1..=N"));
    }
    Ok((k, n))
}

/// Whether `node` is in shard `k` of `n`: FNV-1a of the node id, modulo N. Stable across
/// machines, runs and releases (no seeded hasher).
pub fn in_shard(node: &str, (k, n): (u32, u32)) -> bool {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in node.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash % u64::from(n) == u64::from(k - 1)
}

fn usage_error(message: impl std::fmt::Display) -> ExitCode {
    errln!("torchcts-lsp run: {message}");
    ExitCode::from(2)
}

pub fn run(args: &RunArgs) -> ExitCode {
    let manifest = args.file.clone().unwrap_or_else(|| PathBuf::from("manifest.py"));
    let manifest = std::path::absolute(&manifest).unwrap_or(manifest);
    let text = match read_manifest(&manifest) {
        Ok(text) => text,
        Err(e) => return usage_error(e),
    };
    let folder = manifest.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."));
    // The project configuration fills what the flags leave unset (device, level, python,
    // the inventory of --against, the earlier results --failed reads).
    let config = match super::config_for_manifest("run", &manifest) {
        Ok(config) => config,
        Err(code) => return code,
    };
    let accounting = args.accounting.for_manifest(config.as_ref());
    let results_dir = args.results.clone().unwrap_or_else(|| folder.join(runner::OWN_FOLDER).join("results"));
    let results_dir = std::path::absolute(&results_dir).unwrap_or(results_dir);
    let side = match torchcts_core::review_diff::side(&text) {
        Ok(side) => side,
        Err(e) => return usage_error(format!("{}: {e}", manifest.display())),
    };
    let device = side.facts.resolve_device(accounting.device.as_deref());

    // The node ids, for the selections that name tests; a skip_ops entry's run on a scratch copy.
    let configured = config.as_ref().and_then(|c| c.results.as_ref()).map(|r| r.value.clone());
    let folders: Vec<PathBuf> = std::iter::once(results_dir.clone()).chain(configured.into_iter().flatten()).collect();
    let (nodes, run_manifest) =
        match named_tests(args, &accounting, config.as_ref(), &manifest, &text, &folders, &device) {
            Ok(named) => named,
            Err(e) => return usage_error(e),
        };
    let selection = match nodes {
        Some(mut nodes) => {
            if let Some(shard) = args.shard {
                nodes.retain(|n| in_shard(n, shard));
            }
            if nodes.is_empty() {
                errln!("torchcts-lsp run: no test to run in this selection");
                return finish(args, &RunSummary::nothing(&results_dir), ExitCode::SUCCESS);
            }
            Selection::Nodes(nodes)
        }
        None => {
            if args.shard.is_some() {
                return usage_error("--shard splits node ids: use it with --entry, --against, --failed or --node");
            }
            let level = match accounting
                .levels
                .selection()
                .map(Ok)
                .unwrap_or_else(|| accounting.default_selection(&side.facts))
            {
                Ok(level) => level,
                Err(e) => return usage_error(e),
            };
            Selection::Filters { level: runner_level(level), dtypes: Vec::new(), keyword: None }
        }
    };
    let python = runner::find_python(args.python.as_deref().or(accounting.python.as_deref()), Some(&folder));
    let request = RunRequest {
        python,
        manifest_path: run_manifest,
        device: device.clone(),
        selection,
        results_dir: results_dir.clone(),
        timeout: Duration::from_secs(args.timeout.max(1)),
        workers: args.workers,
        isolate: args.isolate,
        env: Vec::new(),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return usage_error(format!("cannot start the async runtime: {e}")),
    };
    let (argv, outcome) = runtime.block_on(follow(request));
    let summary = RunSummary::of(&outcome, argv, &results_dir);
    let code = summary.exit_code();
    if matches!(outcome.status, RunStatus::Crashed { .. }) && !args.isolate {
        errln!("Hint: the run died during a test; what completed and the crash are kept in {}.", results_dir.display());
        errln!(
            "Hint: run the same tests again, each in its own process (the crash is then one test's record and \
             the run completes): {}",
            rerun_command(args, &manifest)
        );
    }
    if let RunStatus::FailedToStart(why) = &outcome.status {
        errln!("torchcts-lsp run: could not start: {why}");
    }
    finish(args, &summary, code)
}

/// The node ids that failed, errored or crashed in the newest records of `folders` on `device`, sorted.
fn failed_in(folders: &[PathBuf], device: &str) -> Vec<String> {
    let index = EvidenceIndex::read(folders, device, Default::default());
    let mut failed: Vec<String> = index
        .records()
        .filter(|(_, e)| matches!(e.status, EvidenceStatus::Failed | EvidenceStatus::Error | EvidenceStatus::Crashed))
        .map(|(id, _)| id.to_string())
        .collect();
    failed.sort();
    failed
}

/// The node ids the selection flags name (`None`: a level run), and the manifest the run
/// uses (a scratch copy for a `skip_ops` entry's tests).
fn named_tests(
    args: &RunArgs,
    accounting: &super::AccountingArgs,
    config: Option<&crate::host::project_config::ProjectConfig>,
    manifest: &Path,
    text: &str,
    folders: &[PathBuf],
    device: &str,
) -> Result<(Option<Vec<String>>, PathBuf), String> {
    if let Some(key_path) = &args.entry {
        let (nodes, scratch) = entry_tests(args, accounting, config, manifest, text)?;
        errln!("torchcts-lsp run: {key_path}: {} tests", nodes.len());
        return Ok((Some(nodes), scratch.unwrap_or_else(|| manifest.to_path_buf())));
    }
    let nodes = if let Some(rev) = &args.against {
        Some(started_against(manifest, text, rev, accounting)?)
    } else if args.failed {
        Some(failed_in(folders, device))
    } else if !args.node.is_empty() {
        Some(args.node.clone())
    } else {
        None
    };
    Ok((nodes, manifest.to_path_buf()))
}

/// The command line that runs this run's selection again, each test in its own process.
fn rerun_command(args: &RunArgs, manifest: &Path) -> String {
    use torchcts_core::accounting_view::LevelSelection as L;
    let mut parts = vec!["torchcts-lsp run".to_string(), shell_word(&manifest.to_string_lossy())];
    if let Some(entry) = &args.entry {
        parts.push(format!("--entry {}", shell_word(entry)));
    } else if let Some(rev) = &args.against {
        parts.push(format!("--against {}", shell_word(rev)));
    } else if args.failed {
        parts.push("--failed".into());
    } else if !args.node.is_empty() {
        parts.extend(args.node.iter().map(|n| format!("--node {}", shell_word(n))));
    } else {
        match args.accounting.levels.selection() {
            Some(L::Cumulative(n)) => parts.push(format!("--level {n}")),
            Some(L::Exact(n)) => parts.push(format!("--level-exact {n}")),
            Some(L::Range(a, b)) => parts.push(format!("--level-range {a}:{b}")),
            None => {}
        }
    }
    if let Some((k, n)) = args.shard {
        parts.push(format!("--shard {k}/{n}"));
    }
    parts.push("--isolate".into());
    if let Some(device) = &args.accounting.device {
        parts.push(format!("--device {}", shell_word(device)));
    }
    if let Some(results) = &args.results {
        parts.push(format!("--results {}", shell_word(&results.to_string_lossy())));
    }
    if let Some(python) = &args.python {
        parts.push(format!("--python {}", shell_word(&python.to_string_lossy())));
    }
    if args.workers > 0 {
        parts.push(format!("--workers {}", args.workers));
    }
    parts.join(" ")
}

fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:=@".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn runner_level(level: torchcts_core::accounting_view::LevelSelection) -> runner::LevelSelection {
    use torchcts_core::accounting_view::LevelSelection as L;
    match level {
        L::Cumulative(n) => runner::LevelSelection::Cumulative(n),
        L::Exact(n) => runner::LevelSelection::Exact(n),
        L::Range(a, b) => runner::LevelSelection::Range(a, b),
    }
}

/// The node ids (relative to the torchcts package) the entry at `args.entry` decides, as the
/// editor's run action on it counts them, and the scratch copy a `skip_ops` item's tests run
/// on (written now).
fn entry_tests(
    args: &RunArgs,
    accounting: &super::AccountingArgs,
    config: Option<&crate::host::project_config::ProjectConfig>,
    manifest: &Path,
    text: &str,
) -> Result<(Vec<String>, Option<PathBuf>), String> {
    use torchcts_core::accounting_view as av;
    let key_path = args.entry.as_deref().unwrap_or_default();
    let inventory = accounting.load_inventory(manifest)?;
    let analysis = accounting.surroundings(manifest, config).analyze_whole(text, None);
    let dict = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).ok_or_else(|| {
        let lines: Vec<String> = analysis.check_lines().into_iter().map(|(_, line)| line).collect();
        format!("{}: {}", manifest.display(), lines.join("\n"))
    })?;
    let target = torchcts_core::runnable::target_at_key_path(&analysis, key_path)?;
    if !torchcts_core::runnable::is_runnable_entry(&target, &av::facts(dict)) {
        return Err(format!(
            "{key_path} decides no tests to run: --entry takes a supported_dtypes entry, a capability \
             while it is True, or a skip_ops item"
        ));
    }
    let counted_as = av::CountedAs {
        device: accounting.device.as_deref(),
        selection: accounting.levels.selection(),
        ..Default::default()
    };
    let run = av::run_target_as(&inventory, dict, Some(&target), &counted_as);
    let nodes = run.node_ids.unwrap_or_default();
    let scratch = match &run.scratch_change {
        Some(change) if !nodes.is_empty() => {
            Some(runner::write_scratch_manifest(manifest, |original, dir| av::scratch_manifest(original, dir, change))?)
        }
        _ => None,
    };
    Ok((nodes, scratch))
}

/// The node ids (relative to the torchcts package) that start running from `rev`'s version
/// of the manifest to the working one, at every level.
fn started_against(manifest: &Path, text: &str, rev: &str, accounting: &AccountingArgs) -> Result<Vec<String>, String> {
    let old = runner::git::committed_text(manifest, rev)
        .map_err(|e| format!("cannot read {} at {rev}: {e}", manifest.display()))?;
    let mut accounting = accounting.for_manifest(None);
    // The runner names tests relative to the package.
    accounting.rooted_at_package = true;
    accounting.node_prefix = None;
    let inventory = accounting.load_inventory(manifest)?;
    let name = manifest.display().to_string();
    let reviewed =
        super::diff::review_texts((&format!("{rev}:{name}"), &old), (&name, text), manifest, &accounting, &inventory)?;
    let mut nodes: Vec<String> = reviewed
        .review
        .diff
        .levels
        .iter()
        .flat_map(|l| l.started.iter().flat_map(|g| g.nodes.iter().cloned()))
        .collect();
    nodes.sort();
    nodes.dedup();
    Ok(nodes)
}

/// Runs to the end, with progress on stderr when it is a terminal.
async fn follow(request: RunRequest) -> (Vec<String>, RunOutcome) {
    let terminal = std::io::stderr().is_terminal();
    let mut handle = runner::start(request);
    let mut argv = Vec::new();
    while let Some(event) = handle.next_event().await {
        match event {
            RunEvent::Started { argv: a } => argv = a,
            RunEvent::Progress { passed, failed, skipped, errors, total, last } if terminal => {
                let done = passed + failed + skipped + errors;
                let total = total.map(|t| format!("/{t}")).unwrap_or_default();
                let last = last.map(|l| format!(" {l}")).unwrap_or_default();
                let line: String = format!("{done}{total}: {passed} passed, {failed} failed, {errors} errors{last}")
                    .chars()
                    .take(160)
                    .collect();
                eprint!("\r\x1b[2K{line}");
            }
            RunEvent::Progress { .. } => {}
            RunEvent::Finished(outcome) => {
                if terminal {
                    eprintln!();
                }
                return (argv, outcome);
            }
        }
    }
    (argv, handle.wait().await)
}

/// What `run` reports.
pub struct RunSummary {
    pub status: String,
    pub died: bool,
    pub could_not_start: bool,
    pub tests: Vec<runner::TestResult>,
    pub results_dir: PathBuf,
    pub crash_artifact: Option<PathBuf>,
    pub argv: Vec<String>,
    pub exit_code: Option<i32>,
}

impl RunSummary {
    fn nothing(results_dir: &Path) -> RunSummary {
        RunSummary {
            status: "nothing to run".into(),
            died: false,
            could_not_start: false,
            tests: Vec::new(),
            results_dir: results_dir.to_path_buf(),
            crash_artifact: None,
            argv: Vec::new(),
            exit_code: None,
        }
    }

    fn of(outcome: &RunOutcome, argv: Vec<String>, results_dir: &Path) -> RunSummary {
        let (status, died, exit_code) = match &outcome.status {
            RunStatus::Completed { exit_code } => {
                (format!("completed (torchcts exit {exit_code})"), false, Some(*exit_code))
            }
            RunStatus::Crashed { description, .. } => (format!("crashed: {description}"), true, None),
            RunStatus::TimedOut => ("timed out".into(), true, None),
            RunStatus::Cancelled => ("cancelled".into(), true, None),
            RunStatus::FailedToStart(why) => (format!("could not start: {why}"), false, None),
        };
        let mut tests = outcome.tests.clone();
        tests.sort_by(|a, b| a.nodeid.cmp(&b.nodeid));
        RunSummary {
            status,
            died,
            could_not_start: matches!(outcome.status, RunStatus::FailedToStart(_)),
            tests,
            results_dir: results_dir.to_path_buf(),
            crash_artifact: outcome.crash_artifact.clone(),
            argv,
            exit_code,
        }
    }

    pub fn count(&self, outcome: TestOutcome) -> usize {
        self.tests.iter().filter(|t| t.outcome == outcome).count()
    }

    fn exit_code(&self) -> ExitCode {
        if self.could_not_start {
            ExitCode::from(2)
        } else if self.died || self.count(TestOutcome::Crashed) > 0 {
            ExitCode::from(3)
        } else if self.count(TestOutcome::Failed) + self.count(TestOutcome::Error) > 0
            || self.exit_code.is_some_and(|c| c != 0 && c != 5)
        {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        }
    }
}

fn outcome_word(outcome: TestOutcome) -> &'static str {
    match outcome {
        TestOutcome::Passed => "passed",
        TestOutcome::Failed => "failed",
        TestOutcome::Skipped => "skipped",
        TestOutcome::Error => "errored",
        TestOutcome::Crashed => "crashed",
        TestOutcome::KnownCrash => "known_backend_crash",
    }
}

fn finish(args: &RunArgs, summary: &RunSummary, code: ExitCode) -> ExitCode {
    let counts = [
        TestOutcome::Passed,
        TestOutcome::Failed,
        TestOutcome::Error,
        TestOutcome::Crashed,
        TestOutcome::KnownCrash,
        TestOutcome::Skipped,
    ]
    .map(|o| (outcome_word(o), summary.count(o)));
    match args.format {
        super::ReportFormat::Json => {
            let mut report = serde_json::json!({
                "status": summary.status,
                "exit_code": summary.exit_code,
                "tests": summary.tests.iter().map(|t| serde_json::json!({
                    "nodeid": t.nodeid, "outcome": outcome_word(t.outcome), "message": t.message,
                })).collect::<Vec<_>>(),
                "results_dir": summary.results_dir,
                "crash_artifact": summary.crash_artifact,
                "argv": summary.argv,
            });
            for (word, n) in counts {
                report[word] = n.into();
            }
            super::output::write_json_stdout(&report);
        }
        super::ReportFormat::Text => {
            // A known crash (the ledger's record, not run) only where there is one.
            let counted = counts
                .iter()
                .filter(|(w, n)| *n > 0 || *w != "known_backend_crash")
                .map(|(w, n)| match *w {
                    "known_backend_crash" => format!("{n} known backend crash (not run)"),
                    _ => format!("{n} {w}"),
                })
                .collect::<Vec<_>>()
                .join(", ");
            out!("torchcts run {}: {counted}\n", summary.status);
            for t in summary.tests.iter().filter(|t| !matches!(t.outcome, TestOutcome::Passed | TestOutcome::Skipped)) {
                let message = t.message.as_deref().and_then(|m| m.lines().next()).unwrap_or("");
                out!("{} {}: {message}\n", outcome_word(t.outcome).to_uppercase(), t.nodeid);
            }
            out!("Results: {}\n", summary.results_dir.display());
        }
    }
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_disjoint_and_cover_the_selection() {
        let nodes: Vec<String> =
            (0..500).map(|i| format!("opinfo/test_x.py::test_op[clean-op{i}-torch.float32]")).collect();
        for n in 1..=5u32 {
            let mut seen = 0;
            for node in &nodes {
                let shards = (1..=n).filter(|k| in_shard(node, (*k, n))).count();
                assert_eq!(shards, 1, "{node} in {shards} of {n} shards");
                seen += 1;
            }
            assert_eq!(seen, nodes.len());
        }
        // Balanced enough: each of 4 shards gets between 15% and 35%.
        for k in 1..=4 {
            let share = nodes.iter().filter(|node| in_shard(node, (k, 4))).count();
            assert!((75..=175).contains(&share), "shard {k}/4 has {share} of 500");
        }
        // Stable: FNV-1a of "a" is 0xaf63dc4c8601ec8c (the published test vector): 0 mod 2
        // (shard 1 of 2), 1 mod 3 (shard 2 of 3).
        assert!(in_shard("a", (1, 2)) && in_shard("a", (2, 3)));
    }

    #[test]
    fn shard_syntax() {
        assert_eq!(parse_shard("2/3"), Ok((2, 3)));
        assert!(parse_shard("0/3").is_err());
        assert!(parse_shard("4/3").is_err());
        assert!(parse_shard("3").is_err());
    }
}
