//! Test runs from the editor: commands, progress, results as diagnostics.
//!
//! A run starts only from an explicit command (code action, `workspace/executeCommand`) or
//! from the opt-in on-save setting; never on open. The runner module owns the process; this
//! file turns its events into LSP work-done progress, a summary message, and diagnostics on
//! the manifest entry the run was about. One run per manifest: a command while one runs asks
//! whether to replace it (no answer within a minute keeps it); an on-save run replaces it
//! (the runner's registry cancels it first).

use super::protocol::{self, CommandArgs};
use super::session::{Change, RunResults, Session};
use runner::{self, RunEvent, RunOutcome, RunRequest, RunStatus, Selection, TestOutcome};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;
use torchcts_core::accounting_view::{self as av, RunTarget};
use torchcts_core::codes::Code;
use torchcts_core::findings::{Finding, Origin, Severity};
use tower_lsp_server::ls_types::*;

const REPLACE_RUN: &str = "Replace it";
const KEEP_RUN: &str = "Keep running";
/// The button on a crashed run's summary: the same tests again, each in its own process.
pub const RERUN_ISOLATED: &str = "Re-run isolated";

/// What a new run does while one of the same manifest is in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenRunning {
    /// Explicit commands: ask the user.
    Ask,
    /// On-save runs: the newest saved state wins.
    Replace,
}

/// Starts a run; `false` when none started (nothing to run, or the user kept the
/// running one).
pub async fn start(
    session: &Session,
    uri: Uri,
    target: RunTarget,
    args: CommandArgs,
    when_running: WhenRunning,
) -> bool {
    let Some(manifest_path) = uri.to_file_path().map(|p| p.into_owned()) else {
        session.client.show_message(MessageType::ERROR, "torchcts: runs need a manifest saved on disk").await;
        return false;
    };
    if let Some(ids) = &target.node_ids {
        if ids.is_empty() {
            session
                .client
                .show_message(
                    MessageType::INFO,
                    format!("torchcts: {} lets in no test at level {}", target.label, target.level),
                )
                .await;
            return false;
        }
    }
    if when_running == WhenRunning::Ask
        && session.runs.current(&manifest_path).is_some()
        && !confirm_replace(session, &target).await
    {
        session.log(crate::server::log::Level::Info, "torchcts: kept the running test run; no new run started").await;
        return false;
    }
    session.read_project_files(&uri).await;
    let settings = session.settings_for(&uri);
    // The workspace `.venv` of the folder holding the manifest (multi-root).
    let workspace = session.folder_for(Some(&manifest_path));
    let python_setting = args.python.clone().or(settings.python.clone()).map(PathBuf::from);
    let python = runner::find_python(python_setting.as_deref(), workspace.as_deref());
    let results_dir = manifest_path
        .parent()
        .map(|d| d.join(".torchcts-lsp").join("results"))
        .unwrap_or_else(|| PathBuf::from(".torchcts-lsp/results"));
    let selection = match &target.node_ids {
        Some(ids) => Selection::Nodes(ids.clone()),
        None => Selection::Filters {
            level: runner::LevelSelection::Cumulative(target.level),
            dtypes: Vec::new(),
            keyword: None,
        },
    };
    // Tests the manifest itself excludes run on a scratch copy with the change applied.
    let run_manifest = match &target.scratch_change {
        None => manifest_path.clone(),
        Some(change) => match scratch_manifest(session, &manifest_path, change).await {
            Ok(path) => path,
            Err(e) => {
                session.client.show_message(MessageType::ERROR, format!("torchcts: {e}")).await;
                return false;
            }
        },
    };
    let request = RunRequest {
        python,
        manifest_path: run_manifest,
        device: target.device.clone(),
        selection,
        results_dir,
        timeout: Duration::from_secs(settings.timeout_seconds.max(1)),
        workers: args.workers.unwrap_or(settings.workers),
        isolate: args.isolate.unwrap_or(false),
        env: Vec::new(),
    };
    let anchor_text = anchor_text(session, &uri, &target.anchor).await;
    let (handle, replaced) = session.runs.start_or_replace(&manifest_path, request);
    if replaced.is_some() {
        session.log(crate::server::log::Level::Info, "torchcts: replaced the running test run of this manifest").await;
    }
    let title = match &target.node_ids {
        Some(ids) => format!("TorchCTS: {} ({} tests) on {}", target.label, ids.len(), target.device),
        None => format!("TorchCTS: level {} on {}", target.level, target.device),
    };
    tokio::spawn(follow(session.clone(), handle, Started { uri, target, args, title, anchor_text }));
    true
}

/// What a started run is about, for [`follow`].
struct Started {
    uri: Uri,
    target: RunTarget,
    args: CommandArgs,
    title: String,
    anchor_text: Option<String>,
}

/// [`start`] as a boxed future of a named type: a finished run's follow-up (the isolated
/// re-run a crash offers) starts the next run through it without a recursive future type.
fn start_again(
    session: Session,
    uri: Uri,
    target: RunTarget,
    args: CommandArgs,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send>> {
    Box::pin(async move { start(&session, uri, target, args, WhenRunning::Ask).await })
}

/// Follows a started run to its end: work-done progress while it runs, then its results as
/// diagnostics on the entry (unless it was cancelled) and a summary message; a run that died
/// offers the isolated re-run as a button.
async fn follow(session: Session, mut handle: runner::RunHandle, started: Started) {
    let Started { uri, target, args, title, anchor_text } = started;
    let client = session.client.clone();
    let token = protocol::run_progress_token(handle.control().id());
    // Ask the client to create the progress token (only one that declared
    // `window.workDoneProgress`); never wait on it for long.
    let progress = if session.client_support().work_done_progress {
        let created = tokio::time::timeout(
            Duration::from_secs(5),
            client.send_request::<request::WorkDoneProgressCreate>(super::to_proto::progress_create(token.clone())),
        )
        .await;
        match created {
            Ok(Ok(())) => Some(client.progress(token, title.clone()).with_message("starting").begin().await),
            _ => None,
        }
    } else {
        None
    };
    let mut outcome: Option<RunOutcome> = None;
    while let Some(event) = handle.next_event().await {
        match event {
            RunEvent::Started { .. } => {}
            RunEvent::Progress { passed, failed, skipped, errors, total, last } => {
                if let Some(p) = &progress {
                    let done = passed + failed + skipped + errors;
                    let total = total.map(|t| format!("/{t}")).unwrap_or_default();
                    let last = last.map(|l| format!(" · {l}")).unwrap_or_default();
                    p.report(format!(
                        "{done}{total}: {passed} passed, {failed} failed, {errors} errors, {skipped} skipped{last}"
                    ))
                    .await;
                }
            }
            RunEvent::Finished(o) => {
                outcome = Some(o);
                break;
            }
        }
    }
    let outcome = match outcome {
        Some(o) => o,
        None => handle.wait().await,
    };
    let isolated = args.isolate.unwrap_or(false);
    let (summary, results) = summarize_outcome(&target, &outcome, anchor_text, isolated);
    if let Some(p) = progress {
        p.finish_with_message(summary.clone()).await;
    }
    let kind = match outcome.status {
        RunStatus::Completed { exit_code: 0 } => MessageType::INFO,
        RunStatus::Cancelled => MessageType::INFO,
        RunStatus::Completed { .. } => MessageType::WARNING,
        _ => MessageType::ERROR,
    };
    let report = outcome
        .report_markdown
        .as_ref()
        .and_then(Uri::from_file_path)
        .map(|u| format!(" Report: {}", u.as_str()))
        .unwrap_or_default();
    if !matches!(outcome.status, RunStatus::Cancelled) {
        if let Some(doc) = session.lock().documents.get_mut(&uri) {
            doc.run_results = Some(results);
        }
        session.changed(Change::Findings(vec![uri.clone()]));
        // The run wrote its artifact into a result folder: evidence for every entry now,
        // whether or not the client watches files.
        session.changed(Change::Results(vec![uri.clone()]));
    }
    if !matches!(outcome.status, RunStatus::Crashed { .. }) || isolated {
        client.show_message(kind, format!("{summary}{report}")).await;
        return;
    }
    // The user may answer much later (or never): nothing waits on it but this task.
    let actions = super::to_proto::message_actions(&[RERUN_ISOLATED]);
    let answer = client.show_message_request(kind, format!("{summary}{report}"), Some(actions)).await;
    if matches!(answer, Ok(Some(MessageActionItem { title, .. })) if title == RERUN_ISOLATED) {
        start_again(session, uri, target, CommandArgs { isolate: Some(true), ..args }).await;
    }
}

/// Asks whether to replace the run in progress; no answer within a minute keeps it
/// (never wait on the client for long).
async fn confirm_replace(session: &Session, target: &RunTarget) -> bool {
    let actions = super::to_proto::message_actions(&[REPLACE_RUN, KEEP_RUN]);
    let question = session.client.show_message_request(
        MessageType::INFO,
        format!("A TorchCTS run of this manifest is in progress. Replace it with a run of {}?", target.label),
        Some(actions),
    );
    matches!(
        tokio::time::timeout(Duration::from_secs(60), question).await,
        Ok(Ok(Some(MessageActionItem { title, .. }))) if title == REPLACE_RUN
    )
}

/// The entry's text now (an analysis: on the blocking pool).
async fn anchor_text(session: &Session, uri: &Uri, anchor: &[String]) -> Option<String> {
    let (uri, anchor) = (uri.clone(), anchor.to_vec());
    crate::server::dispatch::background(session, "run anchor", move |session, on_pool| {
        let snapshot = crate::server::analysis::snapshot(session, &uri, on_pool)?;
        anchor_span(&snapshot.analysis, &anchor).map(|s| snapshot.analysis.text[s].to_string())
    })
    .await
}

/// Byte span of the entry at a key path in the current text (the whole pair).
pub fn anchor_span(analysis: &torchcts_core::Analysis, anchor: &[String]) -> Option<std::ops::Range<usize>> {
    let manifest = analysis.model.manifest.as_ref()?.as_dict()?;
    let mut dict = manifest;
    let mut span = None;
    for (i, key) in anchor.iter().enumerate() {
        let entry = dict
            .entries
            .iter()
            .find(|e| e.key.py_str() == *key || analysis.text.get(e.key.span.clone()) == Some(key))?;
        span = Some(entry.key.span.start..entry.value.span.end.max(entry.key.span.end));
        if i + 1 < anchor.len() {
            dict = entry.value.as_dict()?;
        }
    }
    span
}

/// The run's diagnostics (on the anchor entry) and its one-line summary.
fn summarize_outcome(
    target: &RunTarget,
    outcome: &RunOutcome,
    anchor_text: Option<String>,
    isolated: bool,
) -> (String, RunResults) {
    let count = |o: TestOutcome| outcome.tests.iter().filter(|t| t.outcome == o).count();
    let (passed, failed, skipped, errors, crashed) = (
        count(TestOutcome::Passed),
        count(TestOutcome::Failed),
        count(TestOutcome::Skipped),
        count(TestOutcome::Error),
        count(TestOutcome::Crashed),
    );
    let status = match &outcome.status {
        RunStatus::Completed { exit_code } => format!("finished (exit {exit_code})"),
        RunStatus::Crashed { description, .. } => format!("crashed: {description}"),
        RunStatus::TimedOut => "timed out".to_string(),
        RunStatus::Cancelled => "cancelled".to_string(),
        RunStatus::FailedToStart(why) => format!("could not start: {why}"),
    };
    let known = match count(TestOutcome::KnownCrash) {
        0 => String::new(),
        n => format!(", {n} known backend crash (not run)"),
    };
    let mut summary = format!(
        "TorchCTS run of {} on {}{} {status}: {passed} passed, {failed} failed, {errors} errors, {crashed} crashed, \
         {skipped} skipped{known}",
        target.label,
        target.device,
        if isolated { " (each test in its own process)" } else { "" }
    );
    // A run that died: its crash is recorded as evidence; isolation contains it next time.
    if matches!(outcome.status, RunStatus::Crashed { .. }) {
        let running = outcome.tests.iter().find(|t| t.outcome == TestOutcome::Crashed).map(|t| t.nodeid.as_str());
        if let Some(running) = running {
            summary.push_str(&format!(" (crashed in {running})"));
        }
        if !isolated {
            summary.push_str(&format!(
                ". {RERUN_ISOLATED}: the same tests, each in its own process, so a crash is one test's \
                 record and the run completes (`torchcts-lsp run --isolate` in a terminal)"
            ));
        }
    }
    let mut findings = Vec::new();
    // Group failures by (op, dtype): "matmul torch.float16: 3 of 12 failed, first failure: ...".
    let mut groups: BTreeMap<(String, String), (usize, usize, Option<String>)> = BTreeMap::new();
    for t in &outcome.tests {
        let key = (t.op.clone().unwrap_or_else(|| "tests".into()), t.dtype.clone().unwrap_or_default());
        let g = groups.entry(key).or_insert((0, 0, None));
        g.0 += 1;
        if matches!(t.outcome, TestOutcome::Failed | TestOutcome::Error | TestOutcome::Crashed) {
            g.1 += 1;
            if g.2.is_none() {
                g.2 = t.message.clone().or_else(|| Some(t.nodeid.clone()));
            }
        }
    }
    for ((op, dtype), (total, bad, first)) in &groups {
        if *bad > 0 {
            let what = if dtype.is_empty() { op.clone() } else { format!("{op} {dtype}") };
            findings.push((
                Severity::Error,
                format!("{what}: {bad} of {total} failed, first failure: {}", first.clone().unwrap_or_default()),
            ));
        }
    }
    match &outcome.status {
        RunStatus::Crashed { description, .. } => {
            findings.push((Severity::Error, format!("the test run crashed: {description}")))
        }
        RunStatus::TimedOut => findings.push((Severity::Error, "the test run timed out".into())),
        RunStatus::FailedToStart(why) => {
            findings.push((Severity::Error, format!("the test run could not start: {why}")))
        }
        _ => {}
    }
    if findings.is_empty() && passed > 0 {
        findings.push((
            Severity::Information,
            format!("torchcts run: {passed} passed, {skipped} skipped on {}", target.device),
        ));
    }
    let failed_ids = outcome
        .tests
        .iter()
        .filter(|t| matches!(t.outcome, TestOutcome::Failed | TestOutcome::Error | TestOutcome::Crashed))
        .map(|t| t.nodeid.clone())
        .collect();
    (summary, RunResults { anchor: target.anchor.clone(), anchor_text, findings, failed: failed_ids })
}

/// Run findings still valid for the current text: dropped when the entry changed.
pub fn run_findings(analysis: &torchcts_core::Analysis, results: &RunResults) -> Vec<Finding> {
    let Some(span) = anchor_span(analysis, &results.anchor) else { return Vec::new() };
    if let Some(text) = &results.anchor_text {
        if analysis.text.get(span.clone()) != Some(text.as_str()) {
            return Vec::new();
        }
    }
    // Mark the key only: the value may span many lines.
    let key_end = analysis.text[span.clone()].find(':').map(|i| span.start + i).unwrap_or(span.end);
    results
        .findings
        .iter()
        .map(|(severity, message)| {
            Finding::new(span.start..key_end, *severity, message.clone(), Code::RunResult, Origin::Lsp)
        })
        .collect()
}

/// [`runner::write_scratch_manifest`] on the blocking pool (file IO).
async fn scratch_manifest(session: &Session, manifest_path: &std::path::Path, change: &str) -> Result<PathBuf, String> {
    let (path, change) = (manifest_path.to_path_buf(), change.to_string());
    crate::server::dispatch::background(session, "scratch manifest", move |_, _| {
        Some(runner::write_scratch_manifest(&path, |original, dir| av::scratch_manifest(original, dir, &change)))
    })
    .await
    .unwrap_or_else(|| Err("writing the scratch copy failed; see stderr".to_string()))
}
