//! All evidence IO (issue 26), for the language server, the CLI and the Python API alike:
//! which result folders belong to a manifest, the `runner::evidence` index of them (read
//! whole for a command, kept and refreshed per folder and device for the server), that index
//! as the core's [`EvidenceLookup`], the run report beside an artifact, when each line of a
//! manifest last changed (git blame, else the file's time), and the notes of an analysed
//! manifest with the clock's time. The counting and wording are the core's
//! (`torchcts_core::evidence`).
//!
//! Everything here reads files and may run git: callers run it off any request loop (the
//! server through `dispatch`).

use runner::evidence::{EvidenceIndex, EvidenceStatus, Limits, RunInfo};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use torchcts_core::evidence::{EvidenceLookup, EvidenceRun, TestRecord, TestStatus};

/// An evidence index read as the core asks: each run converted once.
pub struct IndexLookup<'i> {
    index: &'i EvidenceIndex,
    runs: HashMap<*const RunInfo, EvidenceRun>,
}

impl<'i> IndexLookup<'i> {
    pub fn new(index: &'i EvidenceIndex) -> IndexLookup<'i> {
        let runs = index.runs().iter().map(|run| (std::sync::Arc::as_ptr(run), evidence_run(run))).collect();
        IndexLookup { index, runs }
    }
}

impl EvidenceLookup for IndexLookup<'_> {
    fn record(&self, node_id: &str) -> Option<TestRecord<'_>> {
        let e = self.index.record(node_id)?;
        let run = self.runs.get(&std::sync::Arc::as_ptr(&e.run))?;
        Some(TestRecord {
            node_id: &e.node_id,
            status: test_status(e.status),
            error: e.error.as_deref(),
            tested_at: e.tested_at.as_deref(),
            run,
        })
    }
}

/// The core's status of a record the index read.
pub fn test_status(status: EvidenceStatus) -> TestStatus {
    match status {
        EvidenceStatus::Passed => TestStatus::Passed,
        EvidenceStatus::Failed => TestStatus::Failed,
        EvidenceStatus::Error => TestStatus::Errored,
        EvidenceStatus::Skipped => TestStatus::Skipped,
        EvidenceStatus::Crashed => TestStatus::Crashed,
        EvidenceStatus::KnownCrash => TestStatus::KnownCrash,
    }
}

fn evidence_run(run: &RunInfo) -> EvidenceRun {
    EvidenceRun {
        artifact: run.path.display().to_string(),
        report: report_of(run).map(|p| p.display().to_string()),
        timestamp: run.timestamp.clone(),
        torch_version: run.torch_version.clone(),
        hardware: run.hardware_key.clone(),
        partial: run.partial,
    }
}

/// The run's `<hardware>_report.md` in its results folder (the artifact's folder, or the one
/// above a `<hardware>_history/` folder), when it exists.
fn report_of(run: &RunInfo) -> Option<PathBuf> {
    let hardware = run.hardware_key.as_deref()?;
    let mut folder = run.path.parent()?;
    if folder.file_name().is_some_and(|n| n.to_string_lossy().ends_with("_history")) {
        folder = folder.parent()?;
    }
    let report = folder.join(format!("{hardware}_report.md"));
    report.is_file().then_some(report)
}

/// When each line of the manifest at `path` last changed, in Unix seconds: its last commit
/// when the file is in git (lines not committed yet: the file's modification time), else
/// the file's modification time. `None` when neither is known.
pub fn line_changed_at(path: &Path, line_count: usize) -> Option<Vec<i64>> {
    let mtime = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    let blamed = runner::git::git_dir(path).and_then(|_| runner::git::line_commit_times(path).ok());
    let mut lines: Vec<i64> = match blamed {
        Some(times) => times.into_iter().map(|t| t.or(mtime)).collect::<Option<Vec<i64>>>()?,
        None => vec![mtime?; line_count],
    };
    // The text may have a line more (or fewer) than git saw: the last known time stands in.
    if let Some(&last) = lines.last() {
        lines.resize(line_count.max(1), last);
    }
    Some(lines)
}

/// The result folders of a manifest at `path`: `results/` beside it, the editor's runs
/// (`.torchcts-lsp/results`), `results/` at `root` (the workspace folder), then `extra`
/// (`--results`, the project's `results`), each once. Missing ones too: an index reads a
/// missing folder as empty and finds it once a run creates it.
pub fn result_folders(path: &Path, root: Option<&Path>, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    if let Some(dir) = path.parent() {
        folders.push(dir.join("results"));
        folders.push(dir.join(".torchcts-lsp").join("results"));
    }
    folders.extend(root.map(|r| r.join("results")));
    folders.extend(extra.iter().cloned());
    let mut unique: Vec<PathBuf> = Vec::new();
    for folder in folders {
        if !unique.contains(&folder) {
            unique.push(folder);
        }
    }
    unique
}

/// Every entry's evidence and the findings from it, for a manifest analysed from the file at
/// `path` (`None`: stdin, no line times): the environment's torch release (`env_torch`) and
/// the clock (`now`, Unix seconds) are the caller's.
pub fn entries_and_notes(
    inventory: &torchcts_core::accounting_view::Inventory,
    analysis: &torchcts_core::Analysis,
    path: Option<&Path>,
    device_override: Option<&str>,
    lookup: &dyn EvidenceLookup,
    env_torch: Option<&str>,
    now: Option<i64>,
) -> (Vec<torchcts_core::evidence::EntryEvidence>, Vec<torchcts_core::evidence::EvidenceNote>) {
    let lines = path.and_then(|p| line_changed_at(p, analysis.line_index.line_count()));
    let context = torchcts_core::evidence::NoteContext { torch_version: env_torch, line_changed_at: lines.as_deref() };
    let entries = torchcts_core::evidence::entry_tallies(inventory, analysis, device_override, lookup, now);
    let notes = torchcts_core::evidence::notes(analysis, &entries, &context);
    (entries, notes)
}

/// What the result folders showed for one manifest on its device.
pub struct Evidence {
    pub device: String,
    pub entries: Vec<torchcts_core::evidence::EntryEvidence>,
    pub notes: Vec<torchcts_core::evidence::EvidenceNote>,
    /// Runs on the device that gave records.
    pub runs: usize,
    /// Runs of other devices in the folders, per device ([`other_devices_note`]).
    pub other_devices: std::collections::BTreeMap<String, usize>,
    /// What could not be used, one line each (`PATH: why`, a folder that is none, history
    /// files left unread), for the caller to say once.
    pub problems: Vec<String>,
}

/// Reads `folders` whole for the manifest at `path` (`None`: text with no file, so no line
/// times) analysed as `analysis`, on its device (`device_override`, else the manifest's);
/// `None` without folders or a manifest dict. `env_torch`: the environment's torch release.
pub fn read(
    folders: &[PathBuf],
    path: Option<&Path>,
    analysis: &torchcts_core::Analysis,
    inventory: &torchcts_core::accounting_view::Inventory,
    device_override: Option<&str>,
    env_torch: Option<&str>,
) -> Option<Evidence> {
    if folders.is_empty() {
        return None;
    }
    let manifest = analysis.model.manifest.as_ref()?.as_dict()?;
    let device = torchcts_core::accounting_view::facts(manifest).resolve_device(device_override);
    let mut problems: Vec<String> = folders
        .iter()
        .filter(|f| !f.is_dir())
        .map(|f| format!("{} is not a folder; no records read from it", f.display()))
        .collect();
    let index = EvidenceIndex::read(folders, &device, Limits::default());
    problems.extend(index.problems().iter().map(|p| format!("{}: {}", p.path.display(), p.message)));
    if index.omitted() > 0 {
        problems.push(format!(
            "{} older history files not read (the newest {} per folder are)",
            index.omitted(),
            Limits::default().max_history_files
        ));
    }
    let now = Some(super::clock::now_seconds());
    let lookup = IndexLookup::new(&index);
    let (entries, notes) = entries_and_notes(inventory, analysis, path, device_override, &lookup, env_torch, now);
    let other_devices = index.other_devices().clone();
    Some(Evidence { device, entries, notes, runs: index.runs().len(), other_devices, problems })
}

/// Where the results folders hold no run on `device` but runs of other devices (records
/// made with `torchcts run --device cpu` for a manifest whose `device_name` is `mps`): what
/// was found, and how to see it (`switch` of the device with the most runs: the caller's
/// way to change the device, `--device cpu` or a setting). `None` otherwise.
pub fn other_devices_note(
    device: &str,
    runs: usize,
    other_devices: &std::collections::BTreeMap<String, usize>,
    switch: impl Fn(&str) -> String,
) -> Option<String> {
    if runs > 0 {
        return None;
    }
    let most = other_devices.iter().max_by_key(|(_, n)| **n).map(|(d, _)| d)?;
    let found: Vec<String> =
        other_devices.iter().map(|(d, n)| format!("{n} {} on `{d}`", if *n == 1 { "run" } else { "runs" })).collect();
    Some(format!(
        "no runs on `{device}` in the results folders, which hold {}: to see them, {}",
        found.join(", "),
        switch(most)
    ))
}

/// The server's evidence indexes, kept per (manifest folder, device) and refreshed on each
/// question (only changed files are read again).
#[derive(Default)]
pub struct EvidenceIndexes {
    by_folder: Mutex<IndexMap>,
}

/// Per (manifest folder, device): its index once read, shared with the questions reading it.
type IndexMap = HashMap<(PathBuf, String), Arc<OnceLock<Arc<Mutex<EvidenceIndex>>>>>;

impl EvidenceIndexes {
    /// The index of the manifest at `path` on `device` over `folders` (its
    /// [`result_folders`]), refreshed, and how many results files this call read (the first
    /// read's, or the refresh's: only new or changed files); `None` when none of the folders
    /// exists yet.
    ///
    /// The first read is done once (issue 35): a second question arriving while it goes on
    /// (the open's evidence notes and the first hover or lens come together) waits for it
    /// instead of reading the same files beside it, which on a loaded machine doubled the
    /// CPU the first answer waited for.
    pub fn index(&self, path: &Path, device: &str, folders: &[PathBuf]) -> Option<(Arc<Mutex<EvidenceIndex>>, usize)> {
        let key = (path.parent()?.to_path_buf(), device.to_string());
        let known = self.map().get(&key).and_then(|slot| slot.get().cloned());
        if let Some(index) = known {
            let read = index.lock().unwrap_or_else(|p| p.into_inner()).refresh();
            return Some((index, read));
        }
        if !folders.iter().any(|f| f.is_dir()) {
            return None;
        }
        let slot = self.map().entry(key).or_default().clone();
        // The read happens outside the map's lock (it is file IO), under the slot's.
        let mut read_here = false;
        let index = slot
            .get_or_init(|| {
                read_here = true;
                Arc::new(Mutex::new(EvidenceIndex::read(folders, device, Limits::default())))
            })
            .clone();
        let read = {
            let mut index = index.lock().unwrap_or_else(|p| p.into_inner());
            if read_here {
                index.files_read()
            } else {
                index.refresh()
            }
        };
        Some((index, read))
    }

    /// Forgets every index (the result folders a manifest has may have changed).
    pub fn clear(&self) {
        self.map().clear();
    }

    fn map(&self) -> std::sync::MutexGuard<'_, IndexMap> {
        self.by_folder.lock().unwrap_or_else(|p| p.into_inner())
    }
}
