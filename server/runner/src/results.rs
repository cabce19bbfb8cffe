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
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use serde_json::{Map, Value};

use super::{TestOutcome, TestResult};

pub(crate) const COMPACT_FORMAT: &str = "torchcts_compact_results";
pub(crate) const REFERENCE_FORMAT: &str = "torchcts_result_reference";
pub(crate) const MAX_REFERENCE_DEPTH: usize = 8;
const TOKEN_ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// Loads a results file as torchcts's `load_result_artifact` does: follows references,
/// expands the compact format. Returns the expanded payload and the file it came from.
pub fn decode_artifact(path: &Path) -> Result<(Value, PathBuf), String> {
    let mut current = path.to_path_buf();
    for _ in 0..=MAX_REFERENCE_DEPTH {
        let text = std::fs::read_to_string(&current).map_err(|e| format!("{}: {e}", current.display()))?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| format!("invalid result JSON in {}: {e}", current.display()))?;
        let Value::Object(object) = &value else {
            return Err(format!("{}: result artifact must contain a JSON object", current.display()));
        };
        match object.get("format").and_then(Value::as_str) {
            Some(REFERENCE_FORMAT) => current = reference_target(&current, object)?,
            Some(COMPACT_FORMAT) => return Ok((decode_compact(object)?, current)),
            _ => return Ok((value, current)),
        }
    }
    Err(format!("result reference depth exceeds {MAX_REFERENCE_DEPTH}"))
}

pub(crate) fn reference_target(reference: &Path, object: &Map<String, Value>) -> Result<PathBuf, String> {
    if object.get("format_version").and_then(Value::as_i64) != Some(1) {
        return Err(format!("unsupported result reference version: {:?}", object.get("format_version")));
    }
    let artifact = object
        .get("artifact")
        .and_then(Value::as_str)
        .filter(|a| !a.is_empty())
        .ok_or("result reference artifact must be a non-empty relative path")?;
    let relative = Path::new(artifact);
    if relative.is_absolute() || relative.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!("result reference escapes its directory: {artifact:?}"));
    }
    Ok(reference.parent().unwrap_or(Path::new(".")).join(relative))
}

fn token(mut index: usize) -> String {
    let base = TOKEN_ALPHABET.len();
    let mut out = Vec::new();
    loop {
        out.push(TOKEN_ALPHABET[index % base]);
        index /= base;
        if index == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

pub(crate) fn decode_compact(object: &Map<String, Value>) -> Result<Value, String> {
    if object.get("format_version").and_then(Value::as_i64) != Some(1) {
        return Err(format!("unsupported compact result format version: {:?}", object.get("format_version")));
    }
    let strings = |name: &str| -> Result<Vec<String>, String> {
        object
            .get(name)
            .and_then(Value::as_array)
            .ok_or(format!("compact result {name} must contain strings"))?
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or(format!("compact result {name} must contain strings")))
            .collect()
    };
    let key_table = strings("key_table")?;
    let string_table = strings("string_table")?;
    if key_table.iter().collect::<HashSet<_>>().len() != key_table.len() {
        return Err("compact result key_table contains duplicates".into());
    }
    let token_keys: HashMap<String, &str> =
        key_table.iter().enumerate().map(|(i, key)| (token(i), key.as_str())).collect();
    let payload = decode_value(object.get("payload").unwrap_or(&Value::Null), &token_keys, &string_table, 0)?;
    if !payload.is_object() {
        return Err("compact result payload must decode to an object".into());
    }
    Ok(payload)
}

fn decode_value(
    value: &Value,
    keys: &HashMap<String, &str>,
    strings: &[String],
    depth: usize,
) -> Result<Value, String> {
    if depth > 512 {
        return Err("compact result nests too deeply".into());
    }
    Ok(match value {
        Value::Object(object) => {
            if object.len() == 1 {
                if let Some(index) = object.get("$") {
                    let index = index
                        .as_u64()
                        .filter(|_| index.is_u64())
                        .ok_or("compact result string reference must be an integer")?;
                    let s = strings
                        .get(index as usize)
                        .ok_or(format!("compact result string reference is out of range: {index}"))?;
                    return Ok(Value::String(s.clone()));
                }
            }
            let mut out = Map::with_capacity(object.len());
            for (encoded, item) in object {
                let key = match encoded.strip_prefix('~') {
                    Some(literal) => literal.to_string(),
                    None => keys.get(encoded).map(|k| k.to_string()).unwrap_or_else(|| encoded.clone()),
                };
                if out.contains_key(&key) {
                    return Err(format!("compact result decodes duplicate key {key:?}"));
                }
                out.insert(key, decode_value(item, keys, strings, depth + 1)?);
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|i| decode_value(i, keys, strings, depth + 1)).collect::<Result<_, _>>()?)
        }
        other => other.clone(),
    })
}

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

/// Whether `name` is a per-worker results file of a run under pytest-xdist:
/// `<hardware>_latest.gw<K>.json`, plain JSON each worker rewrites after every test. The
/// controller merges them into `<hardware>_latest.json` and deletes them when the session
/// ends; a run that was killed leaves them (and the next run merges them first).
pub fn is_worker_artifact(name: &str) -> bool {
    name.strip_suffix(".json")
        .and_then(|n| n.rsplit_once("_latest.gw"))
        .is_some_and(|(hardware, k)| !hardware.is_empty() && !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
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
