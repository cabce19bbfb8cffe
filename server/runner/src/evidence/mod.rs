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
//! Invariants (issue 35): reading never panics, never waits and never does unbounded work.
//! - Only regular files are opened, non-blocking, their type checked before and after the
//!   open (`open.rs`): a FIFO or a device, listed or named by a reference, is a [`Problem`].
//! - Files are streamed (`artifact.rs`, `pyjson.rs`): no tree of a whole file; what stays is
//!   one record per test. Bounds ([`Limits`]): a file over `max_file_bytes` is not read;
//!   each `_history` folder gives its `max_history_files` newest files; a refresh reads at
//!   most `max_refresh_bytes` (the rest waits for the next refresh); at most `max_records`
//!   records are kept per file and tests in the index. Each bound reached is one note (a
//!   [`Problem`] on the folder or file), once per refresh.
//! - A file is read as torchcts's loader reads it (Python's `json.loads`: `NaN`, `1e999`;
//!   `format_version` `1.0`; compact and reference rules); a record that is not an object or
//!   has no valid `status` is left out and counted in a [`Problem`] on its file, never
//!   counted as another status; a date after the clock passed to [`EvidenceIndex::read_at`]
//!   is not believed (the record is dated by its run, a run by nothing) and said in a note.
//! - A corrupt, truncated or foreign file, or a reference loop, is one [`Problem`] (however
//!   many listed files lead to it, until the file changes) and is otherwise skipped.
//! - Work follows what changed: [`EvidenceIndex::refresh`] re-reads only files whose (mtime,
//!   length) changed, including the targets of references, and merges them into the index
//!   (the index is the newest record per test, a maximum, so a new file merges alone); the
//!   records of a changed or removed file are taken out, and when one of its tests then lacks
//!   a record at least as new, the runs that have records of that test (each cached file keeps
//!   its tests' hashes) are read again, not the whole folder.
//!   A rewrite that keeps both mtime and length is not seen (torchcts rewrites
//!   `_latest.json` after every test, so its length moves).

pub(crate) mod artifact;
pub(crate) mod compact;
mod fast;
mod files;
pub(crate) mod layout;
pub(crate) mod open;
pub(crate) mod pyjson;
mod pyvalue;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use serde_json::Value;

pub use artifact::EvidenceStatus;
use artifact::{Parsed, Record};
use files::{iso_seconds, run_of};

/// Bounds on what one read or refresh does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The newest files read from each `<hardware>_history/` folder.
    pub max_history_files: usize,
    /// A file larger than this is a problem, not read.
    pub max_file_bytes: u64,
    /// Bytes read by one read or refresh over all folders; files past it wait for the next.
    pub max_refresh_bytes: u64,
    /// Records kept per file, and tests in the index (a full torchcts 0.4.1 run at level 8
    /// is 19,199 tests: five times that leaves room for the suite to grow).
    pub max_records: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_history_files: 64,
            max_file_bytes: 64 * 1024 * 1024,
            max_refresh_bytes: 512 * 1024 * 1024,
            max_records: 100_000,
        }
    }
}

/// One run artifact that gave evidence.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// The file holding the records (the history file a `_latest.json` reference names).
    pub path: PathBuf,
    /// Metadata `timestamp` (UTC ISO-8601), when present and not after the clock.
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
    /// How many records the run holds (objects with a valid `status`; damaged entries are
    /// counted in a [`Problem`] instead).
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
    /// The record's `last_tested`, else its run's `timestamp` (dates after the clock are not
    /// believed).
    pub tested_at: Option<String>,
    pub op: Option<String>,
    pub dtype: Option<String>,
    pub run: Arc<RunInfo>,
}

/// A file that could not be used, or was used in part, and why: `path` is the file at fault
/// (the target of a reference, not the `_latest.json` naming it; the smallest path of a
/// reference loop), or the results folder for a bound of the whole read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    pub message: String,
}

/// The node id relative to the torchcts package: the file part loses everything up to its
/// last `torchcts` folder, leading `./` and Windows separators; the rest (`::test[params]`)
/// is kept as it is. An id with no `torchcts` folder is taken to be package-relative already.
pub fn normalize_node_id(node_id: &str) -> String {
    normalized(node_id).into_owned()
}

/// [`normalize_node_id`] without a copy when the id is package-relative already (a runner's
/// focused run: the common case, once per record read).
fn normalized(node_id: &str) -> std::borrow::Cow<'_, str> {
    let (file, rest) = match node_id.find("::") {
        Some(i) => node_id.split_at(i),
        None => (node_id, ""),
    };
    if memchr::memmem::find(file.as_bytes(), b"torchcts").is_none()
        && !file.contains('\\')
        && !file.starts_with('/')
        && !file.contains("./")
        && !file.contains("//")
    {
        return std::borrow::Cow::Borrowed(node_id);
    }
    let file = file.replace('\\', "/");
    let parts: Vec<&str> = file.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    let start = parts.iter().rposition(|p| *p == "torchcts").map_or(0, |i| i + 1);
    std::borrow::Cow::Owned(format!("{}{}", parts[start..].join("/"), rest))
}

fn device_base(device: &str) -> &str {
    device.split(':').next().unwrap_or(device)
}

/// The device a run is of: its `device_name` (without an index), else its `hardware_key`'s
/// part before the first `_`.
fn device_of_run(run: &RunInfo) -> Option<&str> {
    match (&run.device_name, &run.hardware_key) {
        (Some(name), _) => Some(device_base(name)),
        (None, Some(key)) => key.split('_').next().filter(|d| !d.is_empty()),
        (None, None) => None,
    }
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

/// What reading one listed file gave, with the stamps of every file it read. The records
/// themselves went into the index; only the run stays.
#[derive(Debug, Clone)]
struct CachedFile {
    stamps: Vec<(PathBuf, Stamp)>,
    outcome: Result<Arc<RunInfo>, Problem>,
    /// Damage and bounds inside the file (it is used, in part).
    notes: Vec<Problem>,
    /// The tests the run has records of (hashes of package-relative node ids, sorted): when a
    /// changed file's records leave the index, the files that may hold older records of the
    /// same tests are these, and only they are read again.
    keys: Arc<Vec<u64>>,
}

impl CachedFile {
    fn unchanged(&self) -> bool {
        self.stamps.iter().all(|(p, s)| stamp(p).as_ref() == Some(s))
    }
}

/// Per-test evidence from results folders, for one device. See the module's documentation.
#[derive(Debug)]
pub struct EvidenceIndex {
    folders: Vec<PathBuf>,
    device: String,
    limits: Limits,
    cache: HashMap<PathBuf, CachedFile>,
    /// Package-relative node id -> its newest record. An `IndexMap`: its table holds indexes
    /// and its entries lie in the order inserted, so the lookups of a run merged in its
    /// file's order (torchcts sorts node ids) walk memory in order; a `HashMap` of 180-byte
    /// buckets missed the cache on nearly every lookup (a third of a 64-file read).
    records: indexmap::IndexMap<String, Evidence, foldhash::fast::RandomState>,
    runs: Vec<Arc<RunInfo>>,
    /// Runs of other devices in the folders, per device (`device_name`, else the
    /// `hardware_key`'s first part): what a question about this device does not see.
    other_devices: BTreeMap<String, usize>,
    problems: Vec<Problem>,
    omitted: usize,
    files_read: usize,
    /// Bounds reached in the last refresh, as notes on the first folder.
    bound_notes: Vec<Problem>,
    /// Tests left out of the index by `max_records` since the index was last rebuilt.
    tests_over_budget: usize,
    /// Bumped by every refresh that found a file new, changed or gone (see [`EvidenceIndex::version`]).
    version: u64,
}

impl EvidenceIndex {
    /// Reads the folders (a missing one is simply empty) and indexes the newest record of
    /// each test on `device`, with the system clock.
    pub fn read(folders: &[PathBuf], device: &str, limits: Limits) -> EvidenceIndex {
        Self::read_at(folders, device, limits, SystemTime::now())
    }

    /// [`EvidenceIndex::read`] with the clock given: dates after `now` are not believed.
    pub fn read_at(folders: &[PathBuf], device: &str, limits: Limits, now: SystemTime) -> EvidenceIndex {
        let mut index = EvidenceIndex {
            folders: folders.to_vec(),
            device: device.to_string(),
            limits,
            cache: HashMap::new(),
            records: indexmap::IndexMap::default(),
            runs: Vec::new(),
            other_devices: BTreeMap::new(),
            problems: Vec::new(),
            omitted: 0,
            files_read: 0,
            bound_notes: Vec::new(),
            tests_over_budget: 0,
            version: 0,
        };
        index.refresh_at(now);
        index
    }

    /// Lists the folders again and re-reads only the files that are new or whose (mtime,
    /// length) changed, or whose reference target changed; files gone are forgotten. Returns
    /// how many files were read (parsed) by this call.
    pub fn refresh(&mut self) -> usize {
        self.refresh_at(SystemTime::now())
    }

    /// [`EvidenceIndex::refresh`] with the clock given.
    pub fn refresh_at(&mut self, now: SystemTime) -> usize {
        let now = iso_seconds(now);
        let (listed, omitted) = self.list();
        self.omitted = omitted;
        let mut old = std::mem::take(&mut self.cache);
        // The runs still given by an unchanged listed file keep their records.
        let mut kept_runs = HashSet::new();
        let mut to_read = Vec::new();
        for path in &listed {
            match old.remove(path) {
                Some(cached) if cached.unchanged() => {
                    if let Ok(run) = &cached.outcome {
                        kept_runs.insert(run.path.clone());
                    }
                    self.cache.insert(path.clone(), cached);
                }
                changed => {
                    // Left in `old`: its run's records are taken out below.
                    if let Some(cached) = changed {
                        old.insert(path.clone(), cached);
                    }
                    to_read.push(path.clone());
                }
            }
        }
        if !to_read.is_empty() || !old.is_empty() {
            self.version += 1;
        }
        // Files changed or gone: their runs' records leave the index, unless another file
        // still gives the run.
        let mut gone_runs = HashSet::new();
        for cached in old.values() {
            if let Ok(run) = &cached.outcome {
                if !kept_runs.contains(&run.path) {
                    gone_runs.insert(run.path.clone());
                }
            }
        }
        let mut taken_out: HashMap<String, (Option<String>, Option<String>)> = HashMap::new();
        // Forgetting a file's runs: its keys go with it (the cache keeps those still listed).
        if !gone_runs.is_empty() {
            self.records.retain(|key, e| {
                let keep = !gone_runs.contains(&e.run.path);
                if !keep {
                    taken_out.insert(key.clone(), (e.tested_at.clone(), e.run.timestamp.clone()));
                }
                keep
            });
        }
        let read = self.read_files(&to_read, &now);
        // A test whose record left with a changed file and came back no newer may have older
        // records in files not re-read: the runs that have records of it are read again.
        let lost: HashSet<u64> = taken_out
            .iter()
            .filter(|(key, (tested, ts))| {
                self.records.get(*key).is_none_or(|e| (&e.tested_at, &e.run.timestamp) < (tested, ts))
            })
            .map(|(key, _)| key_hash(key))
            .collect();
        let read = if lost.is_empty() { read } else { read + self.reread_runs_of(&lost, &now) };
        self.files_read += read;
        self.collect(&listed);
        read
    }

    /// Reads `paths` (in listing order), within the refresh's byte budget, merging their
    /// records; returns how many files were parsed.
    fn read_files(&mut self, paths: &[PathBuf], now: &str) -> usize {
        self.bound_notes.clear();
        let mut budget = self.limits.max_refresh_bytes;
        let mut waiting = 0;
        let mut parsed = 0;
        for path in paths {
            let size = stamp(path).map_or(0, |s| s.1);
            if size > budget && size <= self.limits.max_file_bytes {
                // Not cached: the next refresh reads it.
                waiting += 1;
                continue;
            }
            let (cached, n, run) = self.load(path, now);
            // The bytes parsed: the files read whole (a reference is small; a file over the
            // bound is not read).
            let bytes: u64 = cached.stamps.iter().map(|(_, s)| s.1).filter(|&b| b <= self.limits.max_file_bytes).sum();
            budget = budget.saturating_sub(if n > 0 { bytes } else { 0 });
            parsed += n;
            let mut cached = cached;
            if let Some((info, parsed)) = run {
                cached.keys = Arc::new(self.merge(&info, parsed.records()));
            }
            self.cache.insert(path.clone(), cached);
        }
        let folder = self.folders.first().cloned().unwrap_or_default();
        if waiting > 0 {
            self.bound_notes.push(Problem {
                path: folder.clone(),
                message: format!(
                    "{waiting} results files not read yet: one refresh reads at most {} bytes",
                    self.limits.max_refresh_bytes
                ),
            });
        }
        if self.tests_over_budget > 0 {
            self.bound_notes.push(Problem {
                path: folder,
                message: format!(
                    "{} tests left out: the index keeps at most {} tests",
                    self.tests_over_budget, self.limits.max_records
                ),
            });
        }
        parsed
    }

    /// Each record newer than the index's for its test replaces it. Returns the run's tests
    /// (their key hashes, sorted).
    fn merge(&mut self, run: &Arc<RunInfo>, records: impl Iterator<Item = (Box<str>, Record)>) -> Vec<u64> {
        let mut keys = Vec::new();
        if !belongs_to_device(run, &self.device) {
            return keys;
        }
        for (node_id, record) in records {
            let key = normalized(&node_id);
            keys.push(key_hash(&key));
            // Borrowed until the record is kept: most records of an older run are not.
            let tested_at = record.last_tested.as_deref().or(run.timestamp.as_deref());
            let newer = match self.records.get(&*key) {
                None if self.records.len() >= self.limits.max_records => {
                    self.tests_over_budget += 1;
                    false
                }
                None => true,
                Some(old) => {
                    (tested_at, run.timestamp.as_deref()) > (old.tested_at.as_deref(), old.run.timestamp.as_deref())
                }
            };
            if newer {
                let evidence = Evidence {
                    tested_at: tested_at.map(String::from),
                    node_id: node_id.to_string(),
                    status: record.status,
                    error: record.error.map(String::from),
                    skip_reason: record.skip_reason.map(String::from),
                    op: record.op.map(String::from),
                    dtype: record.dtype.map(String::from),
                    run: run.clone(),
                };
                self.records.insert(key.into_owned(), evidence);
            }
        }
        keys.sort_unstable();
        keys
    }

    /// Reads again the runs that have records of `lost` tests (whose records left with a
    /// changed or removed file), so that their older records come back; returns how many
    /// files were parsed.
    fn reread_runs_of(&mut self, lost: &HashSet<u64>, now: &str) -> usize {
        let mut runs: Vec<Arc<RunInfo>> = Vec::new();
        for cached in self.cache.values() {
            if let Ok(run) = &cached.outcome {
                if cached.keys.iter().any(|k| lost.contains(k)) && !runs.iter().any(|r| r.path == run.path) {
                    runs.push(run.clone());
                }
            }
        }
        let mut parsed = 0;
        for run in runs {
            parsed += 1;
            if let Ok(Parsed::Run(records)) = artifact::parse(&run.path, self.limits.max_records) {
                let (_, records, _) = run_of(&run.path, records, now, self.limits.max_records);
                self.merge(&run, records.records());
            }
        }
        parsed
    }

    /// The runs and problems of the listed files, after a refresh.
    fn collect(&mut self, listed: &[PathBuf]) {
        self.runs.clear();
        self.other_devices.clear();
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
            for note in &cached.notes {
                if !self.problems.contains(note) {
                    self.problems.push(note.clone());
                }
            }
            if !runs_seen.insert(canonical(&run.path)) {
                continue;
            }
            if belongs_to_device(run, &self.device) {
                self.runs.push(run.clone());
            } else if let Some(other) = device_of_run(run) {
                *self.other_devices.entry(other.to_string()).or_default() += 1;
            }
        }
        self.problems.extend(self.bound_notes.iter().cloned());
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

    /// How many runs of each other device the folders hold (by name, sorted): runs a
    /// question about this device does not see (say so where this device has none).
    pub fn other_devices(&self) -> &BTreeMap<String, usize> {
        &self.other_devices
    }

    /// The files that could not be used (or only in part), each once, in listing order,
    /// then the bounds the last refresh reached.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// History files left unread by [`Limits::max_history_files`] in the last refresh.
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// What the index holds, as a number: the same number means the same records, runs and
    /// problems (a refresh that found no file new, changed or gone keeps it), so a caller may
    /// keep what it computed from them under it. Bumped (never reset) by every other refresh;
    /// a fresh index starts at 1 or more.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Files parsed since the index was created (reads and refreshes together).
    pub fn files_read(&self) -> usize {
        self.files_read
    }

    pub fn device(&self) -> &str {
        &self.device
    }

    /// The bytes the index holds in its records, roughly (strings and entries): what the
    /// record budget bounds (the fuzz test checks it).
    pub fn accounted_bytes(&self) -> usize {
        let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
        self.records
            .iter()
            .map(|(k, e)| {
                k.len()
                    + e.node_id.len()
                    + text(&e.error)
                    + text(&e.skip_reason)
                    + text(&e.tested_at)
                    + text(&e.op)
                    + text(&e.dtype)
                    + std::mem::size_of::<Evidence>()
                    + 32
            })
            .sum()
    }
}

/// A test's key in [`CachedFile::keys`].
fn key_hash(key: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::default().hash_one(key)
}

/// The file's real path (a results folder given twice, through a link, is read once).
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
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
