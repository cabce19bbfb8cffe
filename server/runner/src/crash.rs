//! Crashes lose nothing: when the `torchcts run` process dies (abort, segfault, killed, out of
//! memory), torchcts writes no final artifact. It rewrites `<hardware>_latest.json` after each
//! test, so a crash after the first test leaves the tests before it; a crash in the first test
//! leaves nothing but the run log (`<hardware>_runlog.txt`, one line per test started). Either
//! way the test that crashed is in no artifact.
//!
//! This module writes one artifact of our own into the results folder, in torchcts's plain
//! format, so that the evidence index, `report` and torchcts itself read it like any other run:
//! `<results>/<hardware>_history/<UTC time>-torchcts-lsp-crash.json` with
//! - `metadata`: torchcts's own of this run when its partial `_latest.json` exists, else
//!   `device_name`, `hardware_key` (from the run log's name) and `pytorch_version` (from the
//!   probe); always `session_completed: false` (a partial run) and `written_by: "torchcts-lsp"`;
//! - `results`: the records of torchcts's partial `_latest.json` (the next run rewrites that
//!   file, so they would be lost), the test that was running as torchcts records a crash of an
//!   isolated test (`status ERROR`, `error_type ProcessCrash`, `failure_stage process_crash`,
//!   `subprocess.signal`), and the tests the output showed finished that torchcts's artifact
//!   lacks.
//!
//! Because the metadata matches and the record is a `ProcessCrash`, torchcts's adaptive
//! isolation (`core/adaptive_isolation.py`, on by default) runs that test in a child process
//! on the next run: the crash is contained without the user doing anything.
//!
//! Invariants: only files this run created are read (the caller's snapshot); nothing torchcts
//! wrote is modified; a failure to write is an `Err` the caller reports in the output tail.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::{json, Value};

use super::TestOutcome;

/// What the caller knows of the run that died.
pub(crate) struct Crash<'a> {
    pub device: &'a str,
    pub signal: Option<i32>,
    pub description: &'a str,
    /// The tests in flight when it died (from the output), oldest first.
    pub running: Vec<String>,
    /// Finished tests the output showed, with their outcome.
    pub finished: &'a [(String, TestOutcome)],
    /// torchcts's partial artifact of this run, decoded, if it wrote one.
    pub partial: Option<&'a Value>,
    pub torch_version: Option<&'a str>,
}

/// The run log of this run: its hardware key and the last test it started.
pub(crate) fn read_run_log(path: &Path) -> Option<(String, Option<String>)> {
    let name = path.file_name()?.to_str()?;
    let hardware = name.strip_suffix("_runlog.txt")?.to_string();
    let text = std::fs::read_to_string(path).ok()?;
    // `     2.4s  opinfo/test_x.py::test_y[...]`; comments start with `#`.
    let last = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_whitespace().nth(1))
        .next_back()
        .map(str::to_string);
    Some((hardware, last))
}

/// Writes the crash artifact; `Ok(None)` when there is nothing to record (no test was
/// running and nothing finished beyond torchcts's own artifact).
pub(crate) fn write_crash_artifact(
    results_dir: &Path,
    run_log: Option<(String, Option<String>)>,
    crash: &Crash,
) -> Result<Option<PathBuf>, String> {
    let now = utc_now();
    let partial_meta = crash.partial.and_then(|p| p.get("metadata")).and_then(Value::as_object);
    let in_partial = |id: &str| {
        crash.partial.and_then(|p| p.get("results")).and_then(Value::as_object).is_some_and(|r| r.contains_key(id))
    };
    let hardware = partial_meta
        .and_then(|m| m.get("hardware_key"))
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| run_log.as_ref().map(|(h, _)| h.clone()));
    let Some(hardware) = hardware else { return Ok(None) };

    let mut running = crash.running.clone();
    if running.is_empty() {
        if let Some(last) = run_log.as_ref().and_then(|(_, last)| last.clone()) {
            if !crash.finished.iter().any(|(id, _)| *id == last) && !in_partial(&last) {
                running.push(last);
            }
        }
    }
    let signal_name = crash.signal.map(short_signal_name);
    let mut results =
        crash.partial.and_then(|p| p.get("results")).and_then(Value::as_object).cloned().unwrap_or_default();
    let kept = results.len();
    for id in &running {
        let message = format!(
            "The test process died during this test: {}. Recorded by torchcts-lsp (torchcts could not write \
             this record); re-run with isolation (--subprocess-per-test) to contain it.",
            crash.description
        );
        results.insert(
            id.clone(),
            json!({
                "status": "ERROR",
                "error_type": "ProcessCrash",
                "failure_stage": "process_crash",
                "phase": "process",
                "error_message": message,
                "last_tested": now,
                "subprocess": {
                    "returncode": crash.signal.map(|s| -s),
                    "signal": signal_name,
                    "timed_out": false,
                },
            }),
        );
    }
    for (id, outcome) in crash.finished {
        if in_partial(id) || results.contains_key(id) {
            continue;
        }
        let status = match outcome {
            TestOutcome::Passed => "PASS",
            TestOutcome::Failed => "FAIL",
            TestOutcome::Skipped => "SKIP",
            TestOutcome::Error | TestOutcome::Crashed | TestOutcome::KnownCrash => "ERROR",
        };
        results.insert(id.clone(), json!({"status": status, "last_tested": now, "phase": "output"}));
    }
    if results.len() == kept {
        return Ok(None);
    }
    let mut metadata = partial_meta.cloned().unwrap_or_default();
    metadata.entry("device_name").or_insert_with(|| json!(crash.device));
    metadata.entry("hardware_key").or_insert_with(|| json!(hardware));
    if let Some(version) = crash.torch_version {
        metadata.entry("pytorch_version").or_insert_with(|| json!(version));
    }
    metadata.insert("timestamp".into(), json!(now));
    metadata.insert("session_completed".into(), json!(false));
    metadata.insert("written_by".into(), json!("torchcts-lsp"));
    metadata
        .insert("crash".into(), json!({"description": crash.description, "signal": signal_name, "running": running}));
    let payload = json!({"metadata": metadata, "results": results, "skips": {}});
    let dir = results_dir.join(format!("{hardware}_history"));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let path = dir.join(format!("{}-torchcts-lsp-crash.json", now.replace([':', '.'], "-")));
    let text = serde_json::to_string_pretty(&payload).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Some(path))
}

/// `SIGABRT`, as torchcts writes signals in `subprocess.signal`.
fn short_signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}

/// The current UTC time as torchcts writes it: `2026-12-03T15:32:12.845254Z`.
fn utc_now() -> String {
    let since = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    format_utc(since.as_secs(), since.subsec_micros())
}

fn format_utc(secs: u64, micros: u32) -> String {
    format!("{}.{micros:06}Z", crate::utc::iso_seconds(secs as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_times_as_torchcts_writes_them() {
        assert_eq!(format_utc(0, 0), "1970-01-01T00:00:00.000000Z");
        // date -u -d @1796312532 +%FT%T => 2026-12-03T15:42:12
        assert_eq!(format_utc(1_796_312_532, 845_254), "2026-12-03T15:42:12.845254Z");
        // A leap day: date -u -d @1709210096 => 2024-02-29T12:34:56
        assert_eq!(format_utc(1_709_210_096, 1), "2024-02-29T12:34:56.000001Z");
    }

    #[test]
    fn the_run_log_names_the_hardware_and_the_last_test_started() {
        let dir = std::env::temp_dir().join(format!("torchcts-crash-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("simdev_vm_23gb_runlog.txt");
        // As torchcts 0.4.1 wrote it for a run that aborted in its second test.
        std::fs::write(
            &log,
            "# TorchCTS rolling run log\n# tests started: 1; retained: 1\n     2.3s  opinfo/a.py::t[x]\n     2.4s  opinfo/a.py::t[y]\n",
        )
        .unwrap();
        assert_eq!(read_run_log(&log), Some(("simdev_vm_23gb".into(), Some("opinfo/a.py::t[y]".into()))));
        std::fs::write(&log, "# TorchCTS rolling run log\n# tests started: 0; retained: 0\n").unwrap();
        assert_eq!(read_run_log(&log), Some(("simdev_vm_23gb".into(), None)));
        std::fs::remove_dir_all(&dir).ok();
    }
}
