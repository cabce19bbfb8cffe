//! Reads the result artifacts torchcts 0.4.1 writes into `--results-dir`, and merges them
//! with what the output showed into the run's per-test outcomes.
//!
//! The files (from `torchcts/conftest.py` and `torchcts/core/result_artifacts.py`):
//! - `<hardware>_latest.json`: rewritten after every test (plain JSON, so a crash leaves the
//!   tests done so far); at the end of a completed session replaced by a *reference*
//!   `{"format": "torchcts_result_reference", "format_version": 1, "artifact": "<hardware>_history/<time>.json"}`
//!   to the stored run, which is in the *compact* format
//!   `{"format": "torchcts_compact_results", "format_version": 1, "key_table": [...], "string_table": [...], "payload": ...}`
//!   (object keys replaced by base-62 tokens indexing `key_table`, strings by `{"$": i}`
//!   indexing `string_table`, literal keys that collide escaped with a leading `~`) or plain
//!   JSON when that is smaller;
//! - `<hardware>_report.md`: the Markdown report, written at the end of a completed session.
//!
//! The expanded payload is `{"metadata": {...}, "results": {nodeid: record}, "skips":
//! {nodeid: record}, ...}`; a result record has `status` (`PASS`, `FAIL`, `ERROR`, `SKIP`),
//! `error_message` (message, then the traceback), `op`, `dtype`, `skip_reason`/`skip_detail`;
//! a skip record (a test the manifest filtered at collection) has `skip_reason`, `detail`,
//! `op`, `dtype`. Node ids are relative to pytest's rootdir.
//!
//! Invariants: decoding follows torchcts's rules exactly and rejects what torchcts rejects
//! (a reference that leaves its folder, a chain deeper than 8, an out-of-range string index);
//! a malformed or missing artifact is an `Err`, never a panic; artifacts older than the run
//! are ignored so a stale result is never reported as this run's.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;

use super::{TestOutcome, TestResult};
use crate::evidence::layout::{
    is_worker_artifact, reference_path, COMPACT_FORMAT, MAX_REFERENCE_DEPTH, REFERENCE_FORMAT,
};

/// Loads a results file as torchcts's `load_result_artifact` does: follows references,
/// expands the compact format, reads Python's JSON (`NaN`, `Infinity`: a failing record's
/// `cosim`; they become `null` here). Only regular files are read (`evidence/open.rs`).
/// Returns the expanded payload and the file it came from.
pub fn decode_artifact(path: &Path) -> Result<(Value, PathBuf), String> {
    use crate::evidence::compact::expand_compact;
    use crate::evidence::pyjson::{loads, Json};
    let mut current = path.to_path_buf();
    for _ in 0..=MAX_REFERENCE_DEPTH {
        let (file, _) =
            crate::evidence::open::open_regular(&current).map_err(|e| format!("{}: {e}", current.display()))?;
        let mut bytes = Vec::new();
        file.take(MAX_ARTIFACT_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", current.display()))?;
        if bytes.len() as u64 > MAX_ARTIFACT_BYTES {
            return Err(format!("{}: more than {MAX_ARTIFACT_BYTES} bytes", current.display()));
        }
        let value = loads(&bytes).map_err(|e| format!("invalid result JSON in {}: {e}", current.display()))?;
        if !matches!(value, Json::Object(_)) {
            return Err(format!("{}: result artifact must contain a JSON object", current.display()));
        }
        match value.get("format").and_then(Json::as_str) {
            Some(REFERENCE_FORMAT) => {
                let version_one = value.get("format_version").is_some_and(Json::equals_one);
                current = reference_path(&current, version_one, value.get("artifact").and_then(Json::as_str))?;
            }
            Some(COMPACT_FORMAT) => return Ok((expand_compact(value)?.to_serde(), current)),
            _ => return Ok((value.to_serde(), current)),
        }
    }
    Err(format!("result reference depth exceeds {MAX_REFERENCE_DEPTH}"))
}

/// The largest artifact [`decode_artifact`] reads (a run's own, after it ended).
const MAX_ARTIFACT_BYTES: u64 = 256 * 1024 * 1024;

/// Per-test outcomes from an expanded payload: every `results` record, in node id order, and,
/// for `requested` node ids, their `skips` records (tests the manifest filtered) as skipped.
pub fn tests_from_payload(payload: &Value, requested: Option<&HashSet<String>>) -> Vec<TestResult> {
    let mut tests = Vec::new();
    if let Some(results) = payload.get("results").and_then(Value::as_object) {
        for (nodeid, record) in results {
            let status = record.get("status").and_then(Value::as_str).unwrap_or("");
            let outcome = match status {
                "PASS" => TestOutcome::Passed,
                "FAIL" => TestOutcome::Failed,
                "SKIP" => TestOutcome::Skipped,
                // A known-segfault ledger entry's record: the test did not run.
                _ if text(record, "failure_stage").as_deref() == Some("known_backend_crash") => TestOutcome::KnownCrash,
                // An isolated test whose process died (`--subprocess-per-test`, or our own
                // record of a run that died, `crash.rs`).
                _ if text(record, "error_type").as_deref() == Some("ProcessCrash") => TestOutcome::Crashed,
                _ => TestOutcome::Error,
            };
            let message = match outcome {
                TestOutcome::Passed => None,
                TestOutcome::Skipped => {
                    reason(record, "skip_reason", "skip_detail").or_else(|| text(record, "error_message"))
                }
                _ => text(record, "error_message")
                    .map(|m| match text(record, "error_type") {
                        // pytest.fail() and assert say what they mean; name other exceptions.
                        Some(kind)
                            if !matches!(kind.as_str(), "AssertionError" | "Failed") && !m.starts_with(&kind) =>
                        {
                            format!("{kind}: {m}")
                        }
                        _ => m,
                    })
                    .or_else(|| {
                        (!status.is_empty() && outcome == TestOutcome::Error && status != "ERROR")
                            .then(|| status.to_string())
                    }),
            };
            tests.push(TestResult {
                nodeid: nodeid.clone(),
                outcome,
                message,
                dtype: text(record, "dtype"),
                op: text(record, "op"),
            });
        }
    }
    if let (Some(requested), Some(skips)) = (requested, payload.get("skips").and_then(Value::as_object)) {
        for (nodeid, record) in skips {
            if requested.contains(nodeid) && !tests.iter().any(|t| &t.nodeid == nodeid) {
                tests.push(TestResult {
                    nodeid: nodeid.clone(),
                    outcome: TestOutcome::Skipped,
                    message: reason(record, "skip_reason", "detail"),
                    dtype: text(record, "dtype"),
                    op: text(record, "op"),
                });
            }
        }
    }
    tests
}

/// The first non-empty line of a string field.
fn text(record: &Value, key: &str) -> Option<String> {
    let s = record.get(key)?.as_str()?;
    s.lines().map(str::trim).find(|l| !l.is_empty()).map(str::to_string)
}

/// `reason: detail`, either part alone, or None.
fn reason(record: &Value, reason_key: &str, detail_key: &str) -> Option<String> {
    match (text(record, reason_key), text(record, detail_key)) {
        (Some(r), Some(d)) if r != d => Some(format!("{r}: {d}")),
        (Some(r), _) => Some(r),
        (None, d) => d,
    }
}

/// Modification times of the files in a folder, taken before a run: what the run writes is
/// what is new or changed afterwards (no comparison with the clock, whose resolution differs
/// from the file system's).
pub type Snapshot = HashMap<PathBuf, SystemTime>;

pub fn snapshot_dir(dir: &Path) -> Snapshot {
    let Ok(entries) = std::fs::read_dir(dir) else { return Snapshot::new() };
    entries.flatten().filter_map(|e| Some((e.path(), e.metadata().and_then(|m| m.modified()).ok()?))).collect()
}

/// The per-worker results files in `dir` that are new or changed since `before`, by name.
pub fn worker_artifacts(dir: &Path, before: &Snapshot) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| is_worker_artifact(&e.file_name().to_string_lossy()))
        .filter(|e| e.metadata().and_then(|m| m.modified()).ok().is_some_and(|t| before.get(&e.path()) != Some(&t)))
        .map(|e| e.path())
        .collect();
    files.sort();
    files
}

/// The newest file in `dir` named `*<suffix>` (not a per-worker `*_latest.gwN.json`) that is
/// new or changed since `before`.
pub fn newest_artifact(dir: &Path, suffix: &str, before: &Snapshot) -> Option<PathBuf> {
    let mut best: Option<(SystemTime, PathBuf)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.ends_with(suffix) || name.starts_with('.') {
            continue;
        }
        let Ok(modified) = entry.metadata().and_then(|m| m.modified()) else { continue };
        if before.get(&entry.path()) == Some(&modified) {
            continue;
        }
        if best.as_ref().is_none_or(|(t, _)| modified > *t) {
            best = Some((modified, entry.path()));
        }
    }
    best.map(|(_, p)| p)
}
