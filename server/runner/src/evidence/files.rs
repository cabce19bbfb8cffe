//! Which files a refresh reads and how one is read (`list`, `load`: references followed,
//! loops and depth bounded, an unchanged target's outcome reused), and the run of a file
//! read (`run_of`: its metadata, dates checked against the clock, the notes on its damage).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use super::artifact::{self, Parsed, ParsedRun};
use super::layout::{is_worker_artifact, MAX_REFERENCE_DEPTH};
use super::{canonical, pyjson, stamp, CachedFile, EvidenceIndex, Problem, RunInfo};

/// The clock as torchcts writes times (`2026-11-30T16:24:12`), to compare as text.
pub(super) fn iso_seconds(now: SystemTime) -> String {
    let secs = now.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    crate::utc::iso_seconds(secs)
}

/// Whether a torchcts time is after the clock (`now`: [`iso_seconds`]); compared on its
/// first 19 characters, which order as the time does.
fn after(time: &str, now: &str) -> bool {
    time.get(..19).unwrap_or(time) > now
}

impl EvidenceIndex {
    /// The files to read: per folder, the newest history files of each `_history` folder,
    /// then every `*_latest.json` and per-worker `*_latest.gwK.json`; and how many history
    /// files the bound left out.
    pub(super) fn list(&self) -> (Vec<PathBuf>, usize) {
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
                        .filter(|p| p.extension().is_some_and(|e| e == "json"))
                        .collect();
                    // `<time>.json` names (`2026-11-30T16-24-12Z`) order as the runs' times.
                    files.sort_by(|a, b| b.file_name().cmp(&a.file_name()));
                    omitted += files.len().saturating_sub(self.limits.max_history_files);
                    files.truncate(self.limits.max_history_files);
                    history.extend(files.into_iter().filter(|p| seen.insert(canonical(p))));
                } else if (name.ends_with("_latest.json") || is_worker_artifact(&name)) && seen.insert(canonical(&path))
                {
                    // Whatever its type: a FIFO or a device here is a problem named, not
                    // silently passed over (`open.rs` refuses to read it).
                    latest.push(path);
                }
            }
        }
        history.extend(latest);
        (history, omitted)
    }

    /// Reads one listed file, following references; returns the cache entry, how many files
    /// were parsed, and the run with its records to merge (none when the run was already
    /// merged through another listed file, or the file is unusable).
    #[allow(clippy::type_complexity)]
    pub(super) fn load(&self, path: &Path, now: &str) -> (CachedFile, usize, Option<(Arc<RunInfo>, ParsedRun)>) {
        let mut stamps = Vec::new();
        let mut visited: Vec<PathBuf> = Vec::new();
        let mut current = path.to_path_buf();
        let mut parsed = 0;
        let mut notes = Vec::new();
        let mut keys = Arc::default();
        let mut run = None;
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
                    if cached.unchanged() {
                        // Its own stamps too: a change further down the chain is a change of
                        // this file's outcome.
                        stamps.extend(cached.stamps.iter().skip(1).cloned());
                        notes = cached.notes.clone();
                        keys = cached.keys.clone();
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
            match artifact::parse(&current, self.limits.max_records) {
                Ok(Parsed::Reference(target)) => current = target,
                Ok(Parsed::Run(parsed_run)) => {
                    let (info, parsed_run, file_notes) = run_of(&current, parsed_run, now, self.limits.max_records);
                    notes = file_notes;
                    run = Some((info.clone(), parsed_run));
                    break Ok(info);
                }
                Err(e) => {
                    let message = if e.starts_with("invalid JSON") {
                        format!("invalid result JSON (truncated or corrupt?): {e}")
                    } else {
                        e
                    };
                    break Err(problem(message));
                }
            }
        };
        (CachedFile { stamps, outcome, notes, keys }, parsed, run)
    }
}

/// The run of a streamed file, its records (dates checked against `now`), and the notes
/// on its damage.
pub(super) fn run_of(
    path: &Path,
    mut parsed: ParsedRun,
    now: &str,
    max_records: usize,
) -> (Arc<RunInfo>, ParsedRun, Vec<Problem>) {
    let metadata = pyjson::Json::Object(std::mem::take(&mut parsed.metadata));
    let meta = |k: &str| metadata.get(k).and_then(pyjson::Json::as_str).map(str::to_string);
    let session_completed = matches!(metadata.get("session_completed"), Some(pyjson::Json::Bool(true)));
    let worker_file = path.file_name().is_some_and(|n| is_worker_artifact(&n.to_string_lossy()));
    let damaged = std::mem::take(&mut parsed.damaged);
    let mut timestamp = meta("timestamp");
    let run_dated_later = timestamp.as_deref().is_some_and(|t| after(t, now));
    if run_dated_later {
        timestamp = None;
    }
    let info = Arc::new(RunInfo {
        path: path.to_path_buf(),
        timestamp,
        torch_version: meta("pytorch_version"),
        hardware_key: meta("hardware_key"),
        device_name: meta("device_name"),
        session_completed,
        partial: !session_completed || worker_file,
        semantic_level_selection: metadata
            .get("semantic_level_selection")
            .filter(|v| **v != pyjson::Json::Null)
            .map(pyjson::Json::to_serde),
        tests: parsed.tests,
    });
    let mut future = 0;
    for (_, (_, record)) in parsed.entries.iter_mut() {
        let Ok(record) = record else { continue };
        if record.last_tested.as_deref().is_some_and(|t| after(t, now)) {
            record.last_tested = None;
            future += 1;
        }
    }
    let mut notes = Vec::new();
    let left_out: usize = damaged.values().sum();
    if left_out > 0 {
        let reasons: Vec<String> =
            damaged.iter().filter(|(_, n)| **n > 0).map(|(why, n)| format!("{why}: {n}")).collect();
        notes.push(Problem {
            path: path.to_path_buf(),
            message: format!("{left_out} entries of `results` left out, not records ({})", reasons.join(", ")),
        });
    }
    if run_dated_later {
        notes.push(Problem {
            path: path.to_path_buf(),
            message: format!("the run is dated after the clock ({now}): its date is ignored"),
        });
    }
    if future > 0 {
        notes.push(Problem {
            path: path.to_path_buf(),
            message: format!("{future} records dated after the clock ({now}): dated by their run instead"),
        });
    }
    if parsed.over_budget > 0 {
        notes.push(Problem {
            path: path.to_path_buf(),
            message: format!("{} records not kept: at most {max_records} are kept per file", parsed.over_budget),
        });
    }
    (info, parsed, notes)
}
