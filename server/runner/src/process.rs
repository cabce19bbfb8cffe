//! Starting and supervising one run: the probe, the `torchcts run` child, its output, the
//! time limit, cancellation, and the outcome.
//!
//! One supervisor task per run owns the child. It waits for the run this one replaces (see
//! `registry.rs`), probes the Python (`command::PROBE_SCRIPT`), spawns `torchcts run` in a new
//! process group with stdin closed and stdout/stderr piped, and then reacts to whatever comes
//! first: output lines (parsed into progress), the child's exit, `cancel()`, or the deadline.
//!
//! Invariants:
//! - The process group is signalled only while it cannot have been recycled: the leader is
//!   either unreaped (a zombie still holds its pid) or we have just seen members in it.
//! - Stopping is SIGTERM to the group, then SIGKILL to the group after `GRACE` whether or not
//!   the leader has gone, because a grandchild may ignore SIGTERM; when a run ends by itself
//!   its leftover group members get the same treatment. Only a process that left the group
//!   (`setsid`, `setpgid`) can survive, and torchcts and pytest do not do that.
//! - Memory is bounded: lines are cut at `MAX_LINE` bytes, the tail keeps `TAIL_LINES`
//!   lines, the event channel holds `EVENT_CAPACITY` events and progress is dropped (never
//!   `Finished`) when the receiver lags; output is drained for at most `DRAIN` after the
//!   leader exits, in case a leftover holds the pipes open.
//! - Every failure (spawn, IO, malformed results) ends as a `RunOutcome`; nothing panics and
//!   nothing here blocks the caller.

use std::collections::{HashSet, VecDeque};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, watch};
use tokio::time::{sleep_until, timeout, Instant};

use super::command::{
    command_line, manifest_dir, plugin_dir, probe_command, results_dir, PLUGIN_MODULE, PLUGIN_SOURCE,
};
use super::crash::{read_run_log, write_crash_artifact, Crash};
use super::output::OutputParser;
use super::process_group::{describe, exit_status, kill_group, stop_group, stop_leftovers};
use super::results::{decode_artifact, newest_artifact, snapshot_dir, tests_from_payload, worker_artifacts, Snapshot};
use super::{RunEvent, RunOutcome, RunRequest, RunStatus, Selection, TestOutcome, TestResult};

const DRAIN: Duration = Duration::from_secs(2);
const MAX_LINE: usize = 16 * 1024;
const TAIL_LINES: usize = 200;
const TAIL_LINE_CHARS: usize = 2000;
const EVENT_CAPACITY: usize = 64;
const PROGRESS_EVERY: Duration = Duration::from_millis(50);
const PROBE_OUTPUT_LIMIT: usize = 64 * 1024;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A started run: its events, and control over it.
#[derive(Debug)]
pub struct RunHandle {
    pub events: mpsc::Receiver<RunEvent>,
    control: RunControl,
}

impl RunHandle {
    /// Stops the run (its whole process group); it finishes with `Cancelled`.
    pub fn cancel(&self) {
        self.control.cancel();
    }

    pub fn control(&self) -> RunControl {
        self.control.clone()
    }

    pub async fn next_event(&mut self) -> Option<RunEvent> {
        self.events.recv().await
    }

    /// Waits for the end of the run (dropping the events not yet received).
    pub async fn wait(self) -> RunOutcome {
        self.control.finished().await
    }
}

/// Cancel or await a run from anywhere (cheap to clone).
#[derive(Debug, Clone)]
pub struct RunControl {
    inner: Arc<Shared>,
    outcome: watch::Receiver<Option<RunOutcome>>,
}

#[derive(Debug)]
struct Shared {
    id: u64,
    cancel: watch::Sender<bool>,
    pgid: AtomicI32,
}

impl RunControl {
    /// Unique per run in this process.
    pub fn id(&self) -> u64 {
        self.inner.id
    }

    pub fn cancel(&self) {
        self.inner.cancel.send_replace(true);
    }

    pub fn is_finished(&self) -> bool {
        self.outcome.borrow().is_some()
    }

    /// The process group of the `torchcts run` child once spawned (its pid).
    pub fn process_group(&self) -> Option<i32> {
        Some(self.inner.pgid.load(Ordering::SeqCst)).filter(|p| *p > 0)
    }

    pub async fn finished(&self) -> RunOutcome {
        let mut rx = self.outcome.clone();
        let outcome = match rx.wait_for(Option::is_some).await {
            Ok(outcome) => outcome.clone(),
            Err(_) => None,
        };
        outcome.unwrap_or_else(lost_outcome)
    }
}

fn lost_outcome() -> RunOutcome {
    RunOutcome {
        status: RunStatus::Crashed {
            signal: None,
            description: "the run's supervisor ended without an outcome".into(),
        },
        tests: Vec::new(),
        results_json: None,
        report_markdown: None,
        output_tail: String::new(),
        crash_artifact: None,
    }
}

/// Starts a run on the current tokio runtime and returns at once.
pub fn start(req: RunRequest) -> RunHandle {
    start_after(req, None)
}

/// Starts a run that first waits for `previous` to finish (it should have been cancelled):
/// two runs of one manifest never overlap.
pub(crate) fn start_after(req: RunRequest, previous: Option<RunControl>) -> RunHandle {
    let (events_tx, events) = mpsc::channel(EVENT_CAPACITY);
    let (cancel, cancel_rx) = watch::channel(false);
    let (outcome_tx, outcome) = watch::channel(None);
    let inner = Arc::new(Shared { id: NEXT_ID.fetch_add(1, Ordering::Relaxed), cancel, pgid: AtomicI32::new(0) });
    let control = RunControl { inner: inner.clone(), outcome };
    let supervisor = Supervisor { req, events: events_tx, cancel: cancel_rx, shared: inner };
    tokio::spawn(async move {
        let outcome = supervisor.run(previous).await;
        outcome_tx.send_replace(Some(outcome));
    });
    RunHandle { events, control }
}

struct Supervisor {
    req: RunRequest,
    events: mpsc::Sender<RunEvent>,
    cancel: watch::Receiver<bool>,
    shared: Arc<Shared>,
}

/// Why the supervisor stopped the child, if it did.
#[derive(Clone, Copy, PartialEq)]
enum Stop {
    Cancelled,
    TimedOut,
}

enum Stream {
    Out,
    Err,
}

enum Chunk {
    Line(Stream, String),
    /// The unfinished tail of stdout after a read.
    Partial(String),
}

impl Supervisor {
    async fn run(self, previous: Option<RunControl>) -> RunOutcome {
        let deadline = Instant::now() + self.req.timeout;
        if let Some(previous) = previous {
            tokio::select! {
                _ = previous.finished() => {}
                stop = self.stopped(deadline) => return self.finish(bare(stop.status())).await,
            }
        }
        if *self.cancel.borrow() {
            return self.finish(bare(RunStatus::Cancelled)).await;
        }

        // torchcts runs every suite when given no test path: an empty selection is a mistake.
        if matches!(&self.req.selection, Selection::Nodes(ids) if ids.is_empty()) {
            return self.finish(bare(RunStatus::FailedToStart("no node ids to run".into()))).await;
        }

        // The probe: where is torchcts, and what is the working directory to Python.
        let cwd = manifest_dir(&self.req);
        if !cwd.is_dir() {
            let message = format!("the manifest's folder {} does not exist", cwd.display());
            return self.finish(bare(RunStatus::FailedToStart(message))).await;
        }
        let probe = match self.probe(&cwd, deadline).await {
            Ok(probe) => probe,
            Err(outcome) => return self.finish(outcome).await,
        };

        if self.req.workers > 1 {
            if let Err(message) = xdist_available(&self.req, &probe.package_dir).await {
                return self.finish(bare(RunStatus::FailedToStart(message))).await;
            }
        }

        // The run.
        let (program, args) = command_line(&self.req, Some(&probe.package_dir));
        let results_dir = results_dir(&self.req);
        let plugin = plugin_dir(&self.req);
        write_run_folders(&results_dir, &plugin).await;
        let before = snapshot(&results_dir).await;
        let env = run_environment(&self.req, &plugin);
        let mut child = match spawn_with(&program, &args, &cwd, &env) {
            Ok(child) => child,
            Err(e) => {
                let message = format!("cannot run {}: {e}", program.display());
                return self.finish(bare(RunStatus::FailedToStart(message))).await;
            }
        };
        let pgid = child.id().map(|p| p as i32).unwrap_or(0);
        self.shared.pgid.store(pgid, Ordering::SeqCst);
        let mut argv = vec![program.to_string_lossy().into_owned()];
        argv.extend(args.iter().map(|a| a.to_string_lossy().into_owned()));
        let _ = self.events.send(RunEvent::Started { argv }).await;

        let (lines_tx, mut lines) = mpsc::channel::<Chunk>(256);
        let readers = [
            child.stdout.take().map(|out| tokio::spawn(read_lines(out, Stream::Out, lines_tx.clone()))),
            child.stderr.take().map(|err| tokio::spawn(read_lines(err, Stream::Err, lines_tx.clone()))),
        ];
        drop(lines_tx);

        let mut parser = OutputParser::new(Some(probe.cwd.clone()), Some(probe.package_dir.clone()));
        let mut tail = Tail::default();
        let mut progress = Progress::default();
        let mut stop: Option<Stop> = None;
        let mut lines_open = true;
        let exit: std::io::Result<ExitStatus> = loop {
            // Biased, in this order: a stop is seen even while output floods in, and the
            // leader is not reaped (by polling `wait`) in an iteration that stops the group.
            tokio::select! {
                biased;
                s = self.stopped(deadline) => {
                    stop = Some(s);
                    break stop_group(pgid, &mut child).await;
                }
                status = child.wait() => break status,
                // Counts held back by the rate limit go out when it allows, even if the
                // output then goes quiet (a test that hangs after two quick passes).
                _ = sleep_until(progress.due()), if progress.dirty => progress.maybe_send(&self.events, &parser),
                chunk = lines.recv(), if lines_open => match chunk {
                    Some(chunk) => {
                        if self.take(chunk, &mut parser, &mut tail) {
                            progress.dirty = true;
                        }
                        progress.maybe_send(&self.events, &parser);
                    }
                    None => lines_open = false,
                },
            }
        };
        // Whatever is left of the group once the leader is gone (a child that kept running).
        if stop.is_none() {
            stop_leftovers(pgid).await;
        }
        // The rest of the output, for a bounded time.
        if lines_open {
            let drain = Instant::now() + DRAIN;
            while let Ok(Some(chunk)) = timeout_at(drain, lines.recv()).await {
                self.take(chunk, &mut parser, &mut tail);
            }
        }
        for reader in readers.into_iter().flatten() {
            reader.abort();
        }
        progress.dirty = true;
        progress.last_sent = None;
        progress.maybe_send(&self.events, &parser);

        let status = match (stop, exit) {
            (Some(stop), _) => stop.status(),
            (None, Ok(status)) => exit_status(status),
            (None, Err(e)) => RunStatus::Crashed { signal: None, description: format!("lost the process: {e}") },
        };
        let outcome = collect(&self.req, status, parser, tail, &results_dir, before, probe.torch_version).await;
        self.finish(outcome).await
    }

    /// Resolves when the run is cancelled or its deadline passes.
    async fn stopped(&self, deadline: Instant) -> Stop {
        let mut cancel = self.cancel.clone();
        tokio::select! {
            _ = cancel.wait_for(|c| *c) => Stop::Cancelled,
            _ = sleep_until(deadline) => Stop::TimedOut,
        }
    }

    async fn probe(&self, cwd: &Path, deadline: Instant) -> Result<Probe, RunOutcome> {
        let (program, args) = probe_command(&self.req);
        let mut child = spawn(&program, &args, cwd)
            .map_err(|e| bare(RunStatus::FailedToStart(format!("cannot run {}: {e}", program.display()))))?;
        let pgid = child.id().map(|p| p as i32).unwrap_or(0);
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        let read = async {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let out_read = async {
                if let Some(s) = stdout.as_mut() {
                    let _ = s.take(PROBE_OUTPUT_LIMIT as u64).read_to_end(&mut out).await;
                }
            };
            let err_read = async {
                if let Some(s) = stderr.as_mut() {
                    let _ = s.take(PROBE_OUTPUT_LIMIT as u64).read_to_end(&mut err).await;
                }
            };
            tokio::join!(out_read, err_read);
            let status = child.wait().await;
            (status, out, err)
        };
        let result = tokio::select! {
            r = read => Ok(r),
            s = self.stopped(deadline) => Err(s),
        };
        let (status, out, err) = match result {
            Ok(r) => r,
            Err(stop) => {
                // `read` (and the child in it) is dropped; the group may still run.
                kill_group(pgid, libc::SIGKILL);
                return Err(bare(stop.status()));
            }
        };
        let text = String::from_utf8_lossy(&out);
        let parsed: Option<serde_json::Value> = text.lines().rev().find_map(|l| serde_json::from_str(l.trim()).ok());
        let package_dir =
            parsed.as_ref().and_then(|v| v.get("package_dir")).and_then(|v| v.as_str()).map(PathBuf::from);
        let probe_cwd = parsed.as_ref().and_then(|v| v.get("cwd")).and_then(|v| v.as_str()).map(PathBuf::from);
        match (status, package_dir) {
            (Ok(s), Some(package_dir)) if s.success() => Ok(Probe {
                package_dir,
                cwd: probe_cwd.unwrap_or_else(|| cwd.to_path_buf()),
                torch_version: parsed
                    .as_ref()
                    .and_then(|v| v.get("torch_version"))
                    .and_then(|v| v.as_str())
                    .map(str::to_string),
            }),
            (status, _) => {
                let err = String::from_utf8_lossy(&err);
                let detail = err.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
                let why = match status {
                    Ok(s) if s.success() => "torchcts is not importable".to_string(),
                    Ok(s) => format!("the probe exited with {}", describe(s)),
                    Err(e) => format!("the probe failed: {e}"),
                };
                let message = format!(
                    "{why} by {}{}",
                    program.display(),
                    if detail.is_empty() { String::new() } else { format!(": {detail}") }
                );
                let mut outcome = bare(RunStatus::FailedToStart(message));
                outcome.output_tail = format!("{}{}", text, err);
                Err(outcome)
            }
        }
    }

    /// Handles one chunk of output; returns whether the progress counts changed.
    fn take(&self, chunk: Chunk, parser: &mut OutputParser, tail: &mut Tail) -> bool {
        match chunk {
            Chunk::Line(Stream::Out, line) => {
                let changed = parser.line(&line);
                tail.push(line);
                changed
            }
            Chunk::Line(Stream::Err, line) => {
                parser.error_line(&line);
                tail.push(line);
                false
            }
            Chunk::Partial(text) => parser.partial(&text),
        }
    }

    async fn finish(&self, outcome: RunOutcome) -> RunOutcome {
        // Room for this is kept free (progress is only sent while two slots are free); if the
        // receiver is gone the send fails at once.
        let _ = self.events.send(RunEvent::Finished(outcome.clone())).await;
        outcome
    }
}

impl Stop {
    fn status(self) -> RunStatus {
        match self {
            Stop::Cancelled => RunStatus::Cancelled,
            Stop::TimedOut => RunStatus::TimedOut,
        }
    }
}

struct Probe {
    package_dir: PathBuf,
    cwd: PathBuf,
    /// `torch.__version__` as torchcts records it (`2.12.1+cu130`), read from `torch/version.py`.
    torch_version: Option<String>,
}

/// The request's variables, and `PYTHONPATH` with our plugin's folder first (the user's
/// `PYTHONPATH`, from the request or inherited, after it).
fn run_environment(req: &RunRequest, plugin: &Path) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> =
        req.env.iter().filter(|(k, _)| k != "PYTHONPATH").map(|(k, v)| (k.into(), v.into())).collect();
    let user = req
        .env
        .iter()
        .find(|(k, _)| k == "PYTHONPATH")
        .map(|(_, v)| OsString::from(v))
        .or_else(|| std::env::var_os("PYTHONPATH"))
        .filter(|v| !v.is_empty());
    let mut path = plugin.as_os_str().to_os_string();
    if let Some(user) = user {
        path.push(":");
        path.push(user);
    }
    env.push(("PYTHONPATH".into(), path));
    env
}

/// Whether pytest-xdist is installed beside torchcts (the probe's package folder is in the
/// site-packages the run imports from) or anywhere in the interpreter's environment; read
/// from dist-info folders, without running Python. Else how to get it.
async fn xdist_available(req: &RunRequest, package_dir: &Path) -> Result<(), String> {
    let (python, package_dir) = (req.python.clone(), package_dir.to_path_buf());
    let found = tokio::task::spawn_blocking(move || {
        package_dir
            .parent()
            .and_then(crate::environment::xdist_version)
            .or_else(|| crate::environment::PythonEnvironment::of_python(&python).xdist)
    })
    .await
    .ok()
    .flatten();
    match found {
        Some(_) => Ok(()),
        None => Err(format!(
            "{} workers need pytest-xdist, which is not installed in the environment of {python}: \
             install it with `{python} -m pip install pytest-xdist`, or set workers to 1",
            req.workers,
            python = req.python.display()
        )),
    }
}

async fn snapshot(dir: &Path) -> Snapshot {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || snapshot_dir(&dir)).await.unwrap_or_default()
}

fn bare(status: RunStatus) -> RunOutcome {
    RunOutcome {
        status,
        tests: Vec::new(),
        results_json: None,
        report_markdown: None,
        output_tail: String::new(),
        crash_artifact: None,
    }
}

fn spawn(program: &Path, args: &[OsString], cwd: &Path) -> std::io::Result<Child> {
    spawn_with(program, args, cwd, &[])
}

fn spawn_with(program: &Path, args: &[OsString], cwd: &Path, env: &[(OsString, OsString)]) -> std::io::Result<Child> {
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Output line by line as tests finish, not in 8 KiB blocks.
        .env("PYTHONUNBUFFERED", "1")
        // torchcts's own switch, in addition to --non-interactive (it never prompts then).
        .env("TORCHCTS_NON_INTERACTIVE", "1")
        .process_group(0)
        .kill_on_drop(false);
    command.spawn()
}

async fn timeout_at<F: std::future::Future>(deadline: Instant, f: F) -> Result<F::Output, tokio::time::error::Elapsed> {
    timeout(deadline.saturating_duration_since(Instant::now()), f).await
}

/// The results folder and our pytest plugin's folder, written off the async workers; a failure
/// shows later as a run that wrote no results or could not load the plugin.
async fn write_run_folders(results_dir: &Path, plugin: &Path) {
    let (dir, plugin) = (results_dir.to_path_buf(), plugin.to_path_buf());
    let _ = tokio::task::spawn_blocking(move || {
        crate::create_own_folder(&dir)?;
        std::fs::create_dir_all(&plugin)?;
        std::fs::write(plugin.join(format!("{PLUGIN_MODULE}.py")), PLUGIN_SOURCE)
    })
    .await;
}

/// Reads a pipe into lines (lossy UTF-8, `\r` dropped, cut at `MAX_LINE`), sending stdout's
/// unfinished tail after each read; the last unterminated line is sent at EOF.
async fn read_lines<R: tokio::io::AsyncRead + Unpin>(mut pipe: R, stream: Stream, tx: mpsc::Sender<Chunk>) {
    let is_out = matches!(stream, Stream::Out);
    let make = |line: &[u8]| {
        let text = String::from_utf8_lossy(line).trim_end_matches('\r').to_string();
        Chunk::Line(if is_out { Stream::Out } else { Stream::Err }, text)
    };
    let mut pending: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 8192];
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        while let Some(i) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=i).collect();
            if tx.send(make(&line[..line.len() - 1])).await.is_err() {
                return;
            }
        }
        if pending.len() >= MAX_LINE {
            let line: Vec<u8> = std::mem::take(&mut pending);
            if tx.send(make(&line)).await.is_err() {
                return;
            }
        } else if is_out && !pending.is_empty() {
            let text = String::from_utf8_lossy(&pending).into_owned();
            if tx.send(Chunk::Partial(text)).await.is_err() {
                return;
            }
        }
    }
    if !pending.is_empty() {
        let _ = tx.send(make(&pending)).await;
    }
}

#[derive(Default)]
struct Tail {
    lines: VecDeque<String>,
}

impl Tail {
    fn push(&mut self, mut line: String) {
        if line.len() > TAIL_LINE_CHARS {
            let mut cut = TAIL_LINE_CHARS;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
            line.push_str(" [...]");
        }
        if self.lines.len() == TAIL_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    fn text(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

#[derive(Default)]
struct Progress {
    dirty: bool,
    /// The last send, or the last attempt the full channel refused.
    last_sent: Option<Instant>,
}

impl Progress {
    /// When the rate limit next allows a send.
    fn due(&self) -> Instant {
        self.last_sent.map_or_else(Instant::now, |t| t + PROGRESS_EVERY)
    }

    /// Sends the counts if they changed, at most every `PROGRESS_EVERY`, and only while the
    /// channel has room to spare (`Finished` must always fit).
    fn maybe_send(&mut self, events: &mpsc::Sender<RunEvent>, parser: &OutputParser) {
        if !self.dirty || self.last_sent.is_some_and(|t| t.elapsed() < PROGRESS_EVERY) {
            return;
        }
        if events.capacity() < 2 {
            // Try again one interval later, not in a busy loop.
            self.last_sent = Some(Instant::now());
            return;
        }
        let c = &parser.counts;
        let event = RunEvent::Progress {
            passed: c.passed,
            failed: c.failed,
            skipped: c.skipped,
            errors: c.errors,
            total: c.total,
            last: c.last.clone(),
        };
        if events.try_send(event).is_ok() {
            self.dirty = false;
        }
        self.last_sent = Some(Instant::now());
    }
}

/// Builds the outcome: the results JSON if this run wrote one, else (and in addition, for
/// tests it lacks) what the output showed; the test running when the process died or was
/// stopped gets an `Error` naming the cause.
async fn collect(
    req: &RunRequest,
    status: RunStatus,
    parser: OutputParser,
    tail: Tail,
    results_dir: &Path,
    before: Snapshot,
    torch_version: Option<String>,
) -> RunOutcome {
    let requested: Option<HashSet<String>> = match &req.selection {
        Selection::Nodes(ids) => Some(
            ids.iter()
                .map(|id| {
                    if Path::new(id).is_absolute() {
                        parser.normalize(id)
                    } else {
                        id.trim_start_matches("./").to_string()
                    }
                })
                .collect(),
        ),
        Selection::Filters { .. } => None,
    };
    let dir = results_dir.to_path_buf();
    let crashed = matches!(status, RunStatus::Crashed { .. });
    let loaded = tokio::task::spawn_blocking(move || {
        let run_log =
            if crashed { newest_artifact(&dir, "_runlog.txt", &before).and_then(|p| read_run_log(&p)) } else { None };
        let latest = newest_artifact(&dir, "_latest.json", &before);
        let report = newest_artifact(&dir, "_report.md", &before);
        // A run with workers that was stopped (or whose controller died) leaves one file per
        // worker instead of a merged `_latest.json`.
        let workers = worker_artifacts(&dir, &before);
        let decoded: Vec<_> = latest.iter().chain(&workers).map(|p| (p.clone(), decode_artifact(p))).collect();
        (latest.or_else(|| workers.first().cloned()), report, decoded, run_log)
    })
    .await;
    let (results_json, report_markdown, decoded, run_log) = loaded.unwrap_or((None, None, Vec::new(), None));
    let mut output_tail = tail.text();
    let mut tests: Vec<TestResult> = Vec::new();
    let mut known: HashSet<String> = HashSet::new();
    // torchcts's own artifact of this run (partial when the run died), for the crash record.
    let mut decoded_partial: Option<serde_json::Value> = None;
    for (path, decoded) in decoded {
        match decoded {
            Ok((payload, _)) => {
                if decoded_partial.is_none() && results_json.as_ref() == Some(&path) {
                    decoded_partial = Some(payload.clone());
                }
                for test in tests_from_payload(&payload, requested.as_ref()) {
                    if known.insert(test.nodeid.clone()) {
                        tests.push(test);
                    }
                }
            }
            Err(e) => output_tail
                .push_str(&format!("[torchcts-lsp] could not read the results JSON {}: {e}\n", path.display())),
        }
    }
    for (id, outcome) in &parser.finished {
        if !known.contains(id) {
            tests.push(TestResult {
                nodeid: id.clone(),
                outcome: *outcome,
                message: parser.messages.get(id).cloned(),
                dtype: None,
                op: None,
            });
        }
    }
    // Under xdist an unknown node id is not reported: the workers collect nothing at all
    // (`2 workers [0 items]`, exit 5). Every requested test then gets that said.
    if status == (RunStatus::Completed { exit_code: 5 }) && parser.counts.total == Some(0) && tests.is_empty() {
        let mut ids: Vec<&String> = requested.iter().flatten().collect();
        ids.sort();
        for id in ids {
            tests.push(TestResult {
                nodeid: id.clone(),
                outcome: TestOutcome::Error,
                message: Some(
                    "pytest collected none of the requested tests (exit 5): a node id may not exist in this \
                     torchcts; with workers pytest-xdist does not say which (a run with one worker does)"
                        .into(),
                ),
                dtype: None,
                op: None,
            });
        }
    }
    // pytest names the missing path up to the function (`file.py::test_f`), without the
    // parameters; the requested ids under it are the ones to flag.
    for missing in &parser.not_found {
        let mut ids: Vec<String> = requested
            .iter()
            .flatten()
            .filter(|id| *id == missing || id.strip_prefix(missing.as_str()).is_some_and(|r| r.starts_with('[')))
            .cloned()
            .collect();
        ids.sort();
        if ids.is_empty() {
            ids.push(missing.clone());
        }
        for id in ids {
            if !tests.iter().any(|t| t.nodeid == id) {
                tests.push(TestResult {
                    nodeid: id,
                    outcome: TestOutcome::Error,
                    message: Some(format!("pytest cannot find {missing}, so it ran nothing")),
                    dtype: None,
                    op: None,
                });
            }
        }
    }
    let left = Leftovers { results_dir, run_log, partial: decoded_partial.as_ref(), torch_version };
    let crash_artifact = mark_unfinished(req, &status, &parser, &mut tests, &mut output_tail, left);
    RunOutcome { status, tests, results_json, report_markdown, output_tail, crash_artifact }
}

/// What a run left in its results folder: its run log (hardware key, last test started),
/// torchcts's partial artifact, and the torch version from the probe.
struct Leftovers<'a> {
    results_dir: &'a Path,
    run_log: Option<(String, Option<String>)>,
    partial: Option<&'a serde_json::Value>,
    torch_version: Option<String>,
}

/// The tests in flight when the run died or was stopped get an outcome naming the cause (from
/// the output, else the run log's last line); a run that died also leaves our record of it
/// (`crash.rs`), whose path is returned.
fn mark_unfinished(
    req: &RunRequest,
    status: &RunStatus,
    parser: &OutputParser,
    tests: &mut Vec<TestResult>,
    output_tail: &mut String,
    left: Leftovers,
) -> Option<PathBuf> {
    let Leftovers { results_dir, run_log, partial, torch_version } = left;
    let cause = match status {
        RunStatus::Crashed { description, .. } => {
            Some((TestOutcome::Crashed, format!("the test process crashed during this test: {description}")))
        }
        RunStatus::TimedOut => {
            Some((TestOutcome::Error, format!("the run timed out during this test (after {:?})", req.timeout)))
        }
        _ => None,
    };
    // The test running when the process died: from the output, else the run log's last line.
    let mut running = parser.unfinished();
    if running.is_empty() && matches!(status, RunStatus::Crashed { .. }) {
        if let Some(last) = run_log.as_ref().and_then(|(_, last)| last.clone()) {
            if !tests.iter().any(|t| t.nodeid == last) {
                running.push(last);
            }
        }
    }
    if let Some((outcome, cause)) = cause {
        // One test, or under xdist every test in flight on a worker.
        for running in &running {
            if !tests.iter().any(|t| &t.nodeid == running) {
                tests.push(TestResult {
                    nodeid: running.clone(),
                    outcome,
                    message: Some(cause.clone()),
                    dtype: None,
                    op: None,
                });
            }
        }
    }
    // A run that died: what completed and the crash become evidence of our own.
    let mut crash_artifact = None;
    if let RunStatus::Crashed { signal, description } = status {
        let crash = Crash {
            device: &req.device,
            signal: *signal,
            description,
            running,
            finished: &parser.finished,
            partial,
            torch_version: torch_version.as_deref(),
        };
        match write_crash_artifact(results_dir, run_log, &crash) {
            Ok(path) => crash_artifact = path,
            Err(e) => output_tail.push_str(&format!("[torchcts-lsp] could not record the crash: {e}\n")),
        }
    }
    crash_artifact
}
