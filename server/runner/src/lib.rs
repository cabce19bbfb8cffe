//! Runs the real `torchcts run` for a manifest: a child process of the user's Python, in the
//! manifest's folder, narrowed to a selection, streamed as events, cancellable, with a time
//! limit, and surviving a backend that segfaults or hangs. A library crate used by the
//! language server and by `server/runner/tests/runs.rs`.
//!
//! What this crate owns: building the command line (no shell, ever), finding the Python,
//! spawning and supervising the process group, parsing pytest's per-test lines into progress,
//! reading torchcts's result artifacts into per-test outcomes, and a per-manifest registry
//! that guarantees at most one run per manifest; and reading a manifest's committed version
//! from git (`git.rs`); and the evidence index of results folders (`evidence.rs`): per test, the
//! newest record on a device; and, for a run that dies, a record of our own of what completed and
//! the test that crashed (`crash.rs`). It knows nothing of LSP: the glue turns
//! [`RunEvent`]s into work-done progress and [`TestResult`]s into diagnostics.
//!
//! Invariants:
//! - Python is started only by [`start`] (an explicit user command or the opt-in on-save
//!   setting, decided by the caller); nothing here runs on its own (DESIGN item 9).
//! - Every value from the manifest or the user (device, dtypes, `-k` expression, node ids,
//!   paths) is one argv entry of its own; no shell parses anything, so `cpu; rm -rf ~` is a
//!   device name torchcts rejects, not a command.
//! - Each child runs in its own process group; cancel, time-out and the end of a run signal
//!   the whole group (SIGTERM, then SIGKILL after a grace), so nothing of a run outlives it
//!   (a process that leaves the group with `setsid` is the one exception, see `process.rs`).
//! - The caller never blocks: everything is async, buffers are bounded, IO errors become
//!   outcomes, never panics. (`git.rs` and `evidence.rs` are the exceptions: plain blocking
//!   calls, which the language server makes on its blocking pool.)

mod command;
mod crash;
pub mod environment;
pub mod evidence;
pub mod git;
mod output;
mod process;
mod process_group;
mod registry;
mod results;
mod utc;

use std::path::PathBuf;
use std::time::Duration;

pub use command::{command_line, find_python, find_python_with};
pub use output::OutputParser;
pub use process::{start, RunControl, RunHandle};
pub use registry::RunRegistry;
pub use results::{decode_artifact, tests_from_payload};

/// Everything one run needs. `python` is used as given (see [`find_python`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunRequest {
    pub python: PathBuf,
    /// The manifest; torchcts reads `manifest.py` from the current directory, so the run
    /// happens in this file's folder.
    pub manifest_path: PathBuf,
    pub device: String,
    pub selection: Selection,
    /// Where torchcts writes `<hardware>_latest.json`, the history and `<hardware>_report.md`.
    /// Relative paths are relative to the manifest's folder. torchcts reads earlier crash
    /// evidence from here too (adaptive isolation), so keep one folder per manifest.
    pub results_dir: PathBuf,
    /// For the whole run, the probe of the Python included.
    pub timeout: Duration,
    /// pytest-xdist worker processes (`-n N`); 0 or 1 runs the tests in one process. More
    /// than one needs pytest-xdist in the run's environment, else the run fails to start
    /// with how to install it (see `process.rs`).
    pub workers: u16,
    /// Each test in a child process of its own (torchcts's `--subprocess-per-test`): a test
    /// that crashes becomes a `ProcessCrash` record and the run goes on. Slower (a Python
    /// start per test).
    pub isolate: bool,
    /// Extra environment variables for the run (on top of the inherited environment).
    pub env: Vec<(String, String)>,
}

/// Which tests to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// Pytest node ids, as torchcts writes them in its results and as the inventory lists
    /// them: relative to the torchcts package (`opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]`),
    /// or absolute. Only these files are collected, which is what makes a focused run fast.
    /// The manifest still applies: a node it filters (level, dtype, capability) is reported
    /// as skipped with torchcts's reason.
    Nodes(Vec<String>),
    /// torchcts's own filters; collects every suite first.
    Filters { level: LevelSelection, dtypes: Vec<String>, keyword: Option<String> },
}

/// `--level N` (levels 1..=N), `--level-exact N`, `--level-range A:B`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelSelection {
    Cumulative(u8),
    Exact(u8),
    Range(u8, u8),
}

/// What a run reports, in this order: one `Started` (unless it fails to start), any number of
/// `Progress`, exactly one `Finished`. Progress events may be coalesced or dropped when the
/// receiver lags; `Finished` is never dropped while the receiver lives.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    Started {
        argv: Vec<String>,
    },
    Progress {
        passed: usize,
        failed: usize,
        skipped: usize,
        errors: usize,
        /// From pytest's "collected N items" / "N selected".
        total: Option<usize>,
        /// The test pytest most recently started or finished (node id relative to the
        /// torchcts package when it lies inside it).
        last: Option<String>,
    },
    Finished(RunOutcome),
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub status: RunStatus,
    /// From torchcts's results JSON when there is one, completed with what the output showed
    /// (tests outside the torchcts package, the test running when the process died).
    pub tests: Vec<TestResult>,
    pub results_json: Option<PathBuf>,
    pub report_markdown: Option<PathBuf>,
    /// The last lines of stdout and stderr, interleaved as they arrived.
    pub output_tail: String,
    /// The artifact torchcts-lsp wrote for a run that died (see `crash.rs`): what completed
    /// and the test that crashed, as evidence, when torchcts could not write it all.
    pub crash_artifact: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunStatus {
    /// The process exited by itself. torchcts: 0 all passed, 1 failures, 2 interrupted
    /// (e.g. the backend failed to import), 4 usage error (e.g. an unknown node id), 5 no
    /// tests collected.
    Completed {
        exit_code: i32,
    },
    /// Killed by a signal it did not get from us (SIGSEGV, SIGABRT, ...), or a wrapper that
    /// exited with 128+signal of one.
    Crashed {
        signal: Option<i32>,
        description: String,
    },
    TimedOut,
    Cancelled,
    /// The Python could not be started, or torchcts is not importable by it.
    FailedToStart(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestResult {
    pub nodeid: String,
    pub outcome: TestOutcome,
    /// The first line of the failure, error or skip reason.
    pub message: Option<String>,
    /// As torchcts records it, e.g. `torch.float32`.
    pub dtype: Option<String>,
    pub op: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TestOutcome {
    Passed,
    Failed,
    Skipped,
    Error,
    /// The test's process died (signal, abort): torchcts's `ProcessCrash` record of an
    /// isolated test, or the test running when the whole run died.
    Crashed,
    /// Recorded without running by a known-segfault ledger entry (`ERROR` with
    /// `failure_stage` `known_backend_crash`).
    KnownCrash,
}

/// The folder torchcts-lsp keeps its own files in beside a manifest (run results, scratch
/// copies).
pub const OWN_FOLDER: &str = ".torchcts-lsp";

/// Creates `dir` and, in the `.torchcts-lsp` folder it is in (if any), a `.gitignore` that
/// ignores everything there, so that results and scratch copies are never committed (nor
/// checked by `torchcts-lsp check DIR` or a pre-commit `--all-files` run). An existing
/// `.gitignore` is left as the user wrote it.
pub fn create_own_folder(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    if let Some(own) = dir.ancestors().find(|d| d.file_name().is_some_and(|n| n == OWN_FOLDER)) {
        let ignore = own.join(".gitignore");
        if !ignore.exists() {
            std::fs::write(
                &ignore,
                "# Written by torchcts-lsp: run results and scratch copies, never committed.\n*\n",
            )?;
        }
    }
    Ok(())
}

/// Writes `<manifest folder>/.torchcts-lsp/scratch/manifest.py`, `text` of the saved
/// manifest and its folder (the caller applies its change: the core's `scratch_manifest`),
/// for a run of tests the manifest itself excludes. The user's file is only read.
pub fn write_scratch_manifest(
    manifest_path: &std::path::Path,
    text: impl FnOnce(&str, &str) -> String,
) -> Result<PathBuf, String> {
    let original = std::fs::read_to_string(manifest_path)
        .map_err(|e| format!("cannot read {} for a scratch copy: {e}", manifest_path.display()))?;
    let dir = manifest_path.parent().unwrap_or(std::path::Path::new("."));
    let scratch_dir = dir.join(OWN_FOLDER).join("scratch");
    create_own_folder(&scratch_dir).map_err(|e| format!("cannot create {}: {e}", scratch_dir.display()))?;
    let path = scratch_dir.join("manifest.py");
    std::fs::write(&path, text(&original, &dir.to_string_lossy()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod own_folder_tests {
    #[test]
    fn the_own_folder_gets_a_gitignore_once() {
        let tmp = std::env::temp_dir().join(format!("torchcts-own-folder-{}", std::process::id()));
        let results = tmp.join(".torchcts-lsp/results");
        super::create_own_folder(&results).unwrap();
        let ignore = tmp.join(".torchcts-lsp/.gitignore");
        assert!(std::fs::read_to_string(&ignore).unwrap().lines().any(|l| l == "*"));
        std::fs::write(&ignore, "mine\n").unwrap();
        super::create_own_folder(&tmp.join(".torchcts-lsp/scratch")).unwrap();
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "mine\n");
        // A folder elsewhere gets none.
        super::create_own_folder(&tmp.join("elsewhere")).unwrap();
        assert!(!tmp.join("elsewhere/.gitignore").exists());
        std::fs::remove_dir_all(&tmp).ok();
    }
}
