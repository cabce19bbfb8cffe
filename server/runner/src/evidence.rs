//! The evidence index (issue 26, item 1): what the runs showed, per test, on one device.
//!
//! Reads torchcts's results folders as `torchcts run` lays them out (`results.rs` describes the
//! files): each `<hardware>_latest.json` (plain JSON while a run goes on or after it was cut
//! short, a reference to `<hardware>_history/<time>.json` once the session completed) and the
//! files of each `<hardware>_history/` folder, newest first. For every test it keeps the
//! newest record on the requested device, with the run it came from, so a narrow run (a few
//! affected tests) updates only the tests it ran and leaves the others to older runs.
//!
//! - Node ids are normalised to the torchcts package ([`normalize_node_id`]): pytest writes
//!   them relative to its rootdir, which is the package for the runner's focused runs
//!   (`opinfo/test_x.py::t`) but may be site-packages, a checkout or `/` elsewhere
//!   (`torchcts/opinfo/test_x.py::t`, `lib/python3.11/site-packages/torchcts/opinfo/...`).
//! - A record is newer than another when its `last_tested` (else its run's `timestamp`) is
//!   greater; both are torchcts's UTC ISO-8601 strings (`2026-11-30T16:24:12.093778Z`), which
//!   order as text. On a tie the run with the greater `timestamp` wins.
//! - A run belongs to the device when its metadata `device_name` is the device (an index such
//!   as `cuda:1` is ignored on both sides); without a `device_name`, when its `hardware_key` is
//!   the device or starts with `<device>_` (torchcts's keys are `<device>_<host facts>`).
//! - Only `results` (tests that ran) are evidence; the `skips` map (tests the manifest filtered
//!   at collection) is the accounting's business, not a run's outcome.
//! - A run under pytest-xdist writes one plain `<hardware>_latest.gw<K>.json` per worker while
//!   it goes on; the controller merges them into `_latest.json` and deletes them at the end. A
//!   run killed before that leaves them: each is read as a partial run (its worker's tests),
//!   whatever its `session_completed` says (a worker left idle by a cancelled run ends its
//!   own session cleanly and writes `true`).
//!
//! Invariants: reading never panics and never does unbounded work: a file larger than
//! [`Limits::max_file_bytes`] is not read, each `_history` folder gives at most
//! [`Limits::max_history_files`] files (newest by name, which is the run's time), a reference
//! chain stops at a loop or at torchcts's depth limit. A corrupt, truncated or foreign file, or
//! a reference loop, is one [`Problem`] (however many listed files lead to it, until the file
//! changes) and is otherwise skipped. [`EvidenceIndex::refresh`] re-reads only files whose
//! (mtime, length) changed, including the targets of references; a rewrite that keeps both
//! is not seen (torchcts rewrites `_latest.json` after every test, so its length moves).

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use serde_json::{Map, Value};

use crate::results::{
    decode_compact, is_worker_artifact, reference_target, COMPACT_FORMAT, MAX_REFERENCE_DEPTH, REFERENCE_FORMAT,
};

/// Bounds on what one read or refresh does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The newest files read from each `<hardware>_history/` folder.
    pub max_history_files: usize,
    /// A file larger than this is a problem, not read.
    pub max_file_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_history_files: 64, max_file_bytes: 64 * 1024 * 1024 }
    }
}

/// A run's status for one test, as torchcts records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EvidenceStatus {
    Passed,
    Failed,
    /// `ERROR`, and any status torchcts may add that is none of the others.
    Error,
    /// Skipped at run time (the test ran and called `pytest.skip`).
    Skipped,
}

/// One run artifact that gave evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// The file holding the records (the history file a `_latest.json` reference names).
    pub path: PathBuf,
    /// Metadata `timestamp` (UTC ISO-8601), when present.
    pub timestamp: Option<String>,
    /// Metadata `pytorch_version`.
    pub torch_version: Option<String>,
    pub hardware_key: Option<String>,
    pub device_name: Option<String>,
    pub session_completed: bool,
    /// `!session_completed`, or a per-worker file of pytest-xdist (never merged, so the run
    /// did not complete): the run was cut short (or is still going on) and counts only for
    /// the tests it reached.
    pub partial: bool,
    /// Metadata `semantic_level_selection` as torchcts wrote it (`mode`, `min_level`,
    /// `max_level`, `label`).
    pub semantic_level_selection: Option<Value>,
    /// How many `results` records the run holds.
    pub tests: usize,
}

/// The newest record of one test on the device.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    /// The node id as the artifact wrote it (relative to that run's pytest rootdir).
    pub node_id: String,
    pub status: EvidenceStatus,
    /// The first non-empty line of `error_message` (failed, errored, or skipped tests).
    pub error: Option<String>,
    pub skip_reason: Option<String>,
    /// The record's `last_tested`, else its run's `timestamp`.
    pub tested_at: Option<String>,
    pub op: Option<String>,
    pub dtype: Option<String>,
    pub run: Arc<RunInfo>,
}

/// A file that could not be used, and why: `path` is the file at fault (the target of a
/// reference, not the `_latest.json` naming it; the smallest path of a reference loop).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    pub message: String,
}

/// The node id relative to the torchcts package: the file part loses everything up to its
/// last `torchcts` folder, leading `./` and Windows separators; the rest (`::test[params]`)
/// is kept as it is. An id with no `torchcts` folder is taken to be package-relative already.
pub fn normalize_node_id(node_id: &str) -> String {
    let (file, rest) = match node_id.find("::") {
        Some(i) => node_id.split_at(i),
        None => (node_id, ""),
    };
    let file = file.replace('\\', "/");
    let parts: Vec<&str> = file.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    let start = parts.iter().rposition(|p| *p == "torchcts").map_or(0, |i| i + 1);
    format!("{}{}", parts[start..].join("/"), rest)
}

fn device_base(device: &str) -> &str {
    device.split(':').next().unwrap_or(device)
}

fn belongs_to_device(run: &RunInfo, device: &str) -> bool {
    let device = device_base(device);
    match (&run.device_name, &run.hardware_key) {
        (Some(name), _) => device_base(name) == device,
        (None, Some(key)) => key == device || key.strip_prefix(device).is_some_and(|r| r.starts_with('_')),
        (None, None) => false,
    }
}

/// (modification time, length) of a file: what "unchanged" means for [`EvidenceIndex::refresh`].
type Stamp = (Option<SystemTime>, u64);

fn stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok(), meta.len()))
}

/// One record as read, before the device and the newest are chosen.
#[derive(Debug)]
struct Record {
    node_id: String,
    status: EvidenceStatus,
    error: Option<String>,
    skip_reason: Option<String>,
    tested_at: Option<String>,
    op: Option<String>,
    dtype: Option<String>,
}

#[derive(Debug)]
struct LoadedRun {
    info: Arc<RunInfo>,
    records: Vec<Record>,
}

/// What reading one listed file gave, with the stamps of every file it read.
#[derive(Debug)]
struct CachedFile {
    stamps: Vec<(PathBuf, Stamp)>,
    outcome: Result<Arc<LoadedRun>, Problem>,
}

/// Per-test evidence from results folders, for one device. See the module's documentation.
#[derive(Debug)]
pub struct EvidenceIndex {
    folders: Vec<PathBuf>,
    device: String,
    limits: Limits,
    cache: HashMap<PathBuf, CachedFile>,
    records: HashMap<String, Evidence>,
    runs: Vec<Arc<RunInfo>>,
    problems: Vec<Problem>,
    omitted: usize,
    files_read: usize,
    /// The listing the records were built from: a refresh that lists the same files and
    /// parses none keeps them (no rebuild over every record).
    listed: Option<Vec<PathBuf>>,
}

impl EvidenceIndex {
    /// Reads the folders (a missing one is simply empty) and indexes the newest record of
    /// each test on `device`.
    pub fn read(folders: &[PathBuf], device: &str, limits: Limits) -> EvidenceIndex {
        let mut index = EvidenceIndex {
            folders: folders.to_vec(),
            device: device.to_string(),
            limits,
            cache: HashMap::new(),
            records: HashMap::new(),
            runs: Vec::new(),
            problems: Vec::new(),
            omitted: 0,
            files_read: 0,
            listed: None,
        };
        index.refresh();
        index
    }

    /// Lists the folders again and re-reads only the files that are new or whose (mtime,
    /// length) changed, or whose reference target changed; files gone are forgotten. Returns
    /// how many files were read (parsed) by this call.
    pub fn refresh(&mut self) -> usize {
        let (listed, omitted) = self.list();
        self.omitted = omitted;
        let mut old = std::mem::take(&mut self.cache);
        let mut read = 0;
        // History files first, so that a `_latest.json` reference to one of them reuses it.
        for path in &listed {
            let reusable = old.remove(path).filter(|c| c.stamps.iter().all(|(p, s)| stamp(p).as_ref() == Some(s)));
            let cached = match reusable {
                Some(c) => c,
                None => {
                    let (c, n) = self.load(path);
                    read += n;
                    c
                }
            };
            self.cache.insert(path.clone(), cached);
        }
        self.files_read += read;
        if read > 0 || self.listed.as_ref() != Some(&listed) {
            self.rebuild(&listed);
            self.listed = Some(listed);
        }
        read
    }

    /// The files to read: per folder, the newest history files of each `_history` folder,
    /// then every `*_latest.json` and per-worker `*_latest.gwK.json`; and how many history
    /// files the bound left out.
    fn list(&self) -> (Vec<PathBuf>, usize) {
        let mut history = Vec::new();
        let mut latest = Vec::new();
        let mut omitted = 0;
        let mut seen = HashSet::new();
        for folder in &self.folders {
            let Ok(entries) = std::fs::read_dir(folder) else { continue };
            let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            entries.sort();
            for path in entries {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                if name.starts_with('.') {
                    continue;
                }
                if name.ends_with("_history") && path.is_dir() {
                    let Ok(files) = std::fs::read_dir(&path) else { continue };
                    let mut files: Vec<PathBuf> = files
                        .flatten()
                        .map(|e| e.path())
                        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
                        .collect();
                    // `<time>.json` names (`2026-11-30T16-24-12Z`) order as the runs' times.
                    files.sort_by(|a, b| b.file_name().cmp(&a.file_name()));
                    omitted += files.len().saturating_sub(self.limits.max_history_files);
                    files.truncate(self.limits.max_history_files);
                    history.extend(files.into_iter().filter(|p| seen.insert(canonical(p))));
                } else if (name.ends_with("_latest.json") || is_worker_artifact(&name))
                    && path.is_file()
                    && seen.insert(canonical(&path))
                {
                    latest.push(path);
                }
            }
        }
        history.extend(latest);
        (history, omitted)
    }

    /// Reads one listed file, following references; returns the cache entry and how many
    /// files were parsed.
    fn load(&self, path: &Path) -> (CachedFile, usize) {
        let mut stamps = Vec::new();
        let mut visited: Vec<PathBuf> = Vec::new();
        let mut current = path.to_path_buf();
        let mut parsed = 0;
        let outcome = loop {
            let problem = |message: String| Problem { path: current.clone(), message };
            let key = canonical(&current);
            if let Some(start) = visited.iter().position(|v| v == &key) {
                // Reported once per loop, whichever of its files (or references to it) was
                // listed: on its smallest path, the chain starting there.
                let cycle = &visited[start..];
                let first = (0..cycle.len()).min_by_key(|&i| &cycle[i]).unwrap_or(0);
                let names: Vec<String> = (0..=cycle.len())
                    .map(|i| {
                        cycle[(first + i) % cycle.len()].file_name().unwrap_or_default().to_string_lossy().into_owned()
                    })
                    .collect();
                break Err(Problem {
                    path: cycle[first].clone(),
                    message: format!("result reference loop: {}", names.join(" -> ")),
                });
            }
            if visited.len() > MAX_REFERENCE_DEPTH {
                break Err(problem(format!("result reference depth exceeds {MAX_REFERENCE_DEPTH}")));
            }
            visited.push(key);
            let Some(file_stamp) = stamp(&current) else {
                break Err(problem("cannot read the file".into()));
            };
            stamps.push((current.clone(), file_stamp));
            // A reference to a history file already read (and unchanged) reuses it, its
            // problem included (so that problem is reported once).
            if visited.len() > 1 {
                if let Some(cached) = self.cache.get(&current) {
                    if cached.stamps.iter().all(|(p, st)| stamp(p).as_ref() == Some(st)) {
                        break cached.outcome.clone();
                    }
                }
            }
            if file_stamp.1 > self.limits.max_file_bytes {
                break Err(problem(format!(
                    "{} bytes, more than the limit of {}",
                    file_stamp.1, self.limits.max_file_bytes
                )));
            }
            parsed += 1;
            let value = match read_json(&current, self.limits.max_file_bytes) {
                Ok(v) => v,
                Err(e) => break Err(problem(e)),
            };
            let Value::Object(object) = value else {
                break Err(problem("not a torchcts result artifact: not a JSON object".into()));
            };
            match object.get("format").and_then(Value::as_str) {
                Some(REFERENCE_FORMAT) => match reference_target(&current, &object) {
                    Ok(target) => current = target,
                    Err(e) => break Err(problem(e)),
                },
                Some(COMPACT_FORMAT) => {
                    break decode_compact(&object).and_then(|p| run_of(&current, p)).map_err(problem)
                }
                _ => break run_of(&current, Value::Object(object)).map_err(problem),
            }
        };
        (CachedFile { stamps, outcome }, parsed)
    }

    fn rebuild(&mut self, listed: &[PathBuf]) {
        self.records.clear();
        self.runs.clear();
        self.problems.clear();
        let mut runs_seen = HashSet::new();
        for path in listed {
            let Some(cached) = self.cache.get(path) else { continue };
            let run = match &cached.outcome {
                Ok(run) => run,
                Err(problem) => {
                    if !self.problems.contains(problem) {
                        self.problems.push(problem.clone());
                    }
                    continue;
                }
            };
            if !belongs_to_device(&run.info, &self.device) || !runs_seen.insert(canonical(&run.info.path)) {
                continue;
            }
            self.runs.push(run.info.clone());
            for record in &run.records {
                let key = normalize_node_id(&record.node_id);
                let newer = match self.records.get(&key) {
                    None => true,
                    Some(old) => (&record.tested_at, &run.info.timestamp) > (&old.tested_at, &old.run.timestamp),
                };
                if newer {
                    self.records.insert(
                        key,
                        Evidence {
                            node_id: record.node_id.clone(),
                            status: record.status,
                            error: record.error.clone(),
                            skip_reason: record.skip_reason.clone(),
                            tested_at: record.tested_at.clone(),
                            op: record.op.clone(),
                            dtype: record.dtype.clone(),
                            run: run.info.clone(),
                        },
                    );
                }
            }
        }
        // Newest run first; equal or missing times in path order.
        self.runs.sort_by(|a, b| b.timestamp.cmp(&a.timestamp).then_with(|| a.path.cmp(&b.path)));
    }

    /// The newest record of a test on the device; `node_id` under any pytest rootdir.
    pub fn record(&self, node_id: &str) -> Option<&Evidence> {
        self.records.get(&normalize_node_id(node_id))
    }

    /// Every test with evidence, by package-relative node id.
    pub fn records(&self) -> impl Iterator<Item = (&str, &Evidence)> {
        self.records.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Each run on the device once (a `_latest.json` reference and its history file are one
    /// run), newest first.
    pub fn runs(&self) -> &[Arc<RunInfo>] {
        &self.runs
    }

    /// The files that could not be used, each once, in listing order.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// History files left unread by [`Limits::max_history_files`] in the last refresh.
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// Files parsed since the index was created (reads and refreshes together).
    pub fn files_read(&self) -> usize {
        self.files_read
    }

    pub fn device(&self) -> &str {
        &self.device
    }
}

/// The file's real path (a results folder given twice, through a link, is read once).
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

fn read_json(path: &Path, max_bytes: u64) -> Result<Value, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let mut bytes = Vec::new();
    // The file may grow between the stat and the read (a run writing it): read one byte past
    // the bound to notice.
    file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(format!("more than the limit of {max_bytes} bytes"));
    }
    serde_json::from_slice(&bytes).map_err(|e| format!("invalid result JSON (truncated or corrupt?): {e}"))
}

/// The run of an expanded payload, or why it is no torchcts result artifact.
fn run_of(path: &Path, payload: Value) -> Result<Arc<LoadedRun>, String> {
    let Value::Object(mut payload) = payload else {
        return Err("not a torchcts result artifact: not a JSON object".into());
    };
    let (Some(Value::Object(metadata)), Some(Value::Object(results))) =
        (payload.remove("metadata"), payload.remove("results"))
    else {
        return Err("not a torchcts result artifact: no `metadata` and `results` objects".into());
    };
    let meta = |k: &str| metadata.get(k).and_then(Value::as_str).map(str::to_string);
    let session_completed = metadata.get("session_completed").and_then(Value::as_bool).unwrap_or(false);
    let worker_file = path.file_name().is_some_and(|n| is_worker_artifact(&n.to_string_lossy()));
    let info = RunInfo {
        path: path.to_path_buf(),
        timestamp: meta("timestamp"),
        torch_version: meta("pytorch_version"),
        hardware_key: meta("hardware_key"),
        device_name: meta("device_name"),
        session_completed,
        partial: !session_completed || worker_file,
        semantic_level_selection: metadata.get("semantic_level_selection").filter(|v| !v.is_null()).cloned(),
        tests: results.len(),
    };
    let records = results
        .into_iter()
        .filter_map(|(node_id, record)| record.as_object().map(|r| record_of(node_id, r, &info)))
        .collect();
    Ok(Arc::new(LoadedRun { info: Arc::new(info), records }))
}

fn record_of(node_id: String, record: &Map<String, Value>, run: &RunInfo) -> Record {
    let text = |k: &str| record.get(k).and_then(Value::as_str).map(str::to_string);
    let first_line = |k: &str| {
        record
            .get(k)
            .and_then(Value::as_str)
            .and_then(|s| s.lines().map(str::trim).find(|l| !l.is_empty()))
            .map(str::to_string)
    };
    let status = match record.get("status").and_then(Value::as_str) {
        Some("PASS") => EvidenceStatus::Passed,
        Some("FAIL") => EvidenceStatus::Failed,
        Some("SKIP") => EvidenceStatus::Skipped,
        _ => EvidenceStatus::Error,
    };
    Record {
        node_id,
        status,
        error: first_line("error_message"),
        skip_reason: first_line("skip_reason"),
        tested_at: text("last_tested").or_else(|| run.timestamp.clone()),
        op: text("op"),
        dtype: text("dtype"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_under_any_root_meet() {
        let id = "opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]";
        for other in [
            "torchcts/opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]",
            "lib/python3.11/site-packages/torchcts/opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]",
            "./opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]",
            "site-packages\\torchcts\\opinfo\\test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]",
        ] {
            assert_eq!(normalize_node_id(other), id, "{other}");
        }
        assert_eq!(normalize_node_id(id), id);
        // Parameters after `::` are never touched, even when they contain a path.
        assert_eq!(normalize_node_id("torchcts/a.py::t[torchcts/x]"), "a.py::t[torchcts/x]");
    }

    #[test]
    fn device_of_a_run() {
        let run = |name: Option<&str>, key: Option<&str>| RunInfo {
            path: PathBuf::new(),
            timestamp: None,
            torch_version: None,
            hardware_key: key.map(str::to_string),
            device_name: name.map(str::to_string),
            session_completed: true,
            partial: false,
            semantic_level_selection: None,
            tests: 0,
        };
        assert!(belongs_to_device(&run(Some("cpu"), Some("cpu_vm_23gb")), "cpu"));
        assert!(belongs_to_device(&run(Some("cuda:1"), None), "cuda"));
        assert!(!belongs_to_device(&run(Some("cuda"), Some("cpu_vm")), "cpu"));
        assert!(belongs_to_device(&run(None, Some("cpu_vm_23gb")), "cpu"));
        assert!(!belongs_to_device(&run(None, Some("cpux_vm")), "cpu"));
        assert!(!belongs_to_device(&run(None, None), "cpu"));
    }
}
