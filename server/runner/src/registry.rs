//! At most one run per manifest: starting a run cancels the manifest's current one, and the
//! new run's process starts only after the old one's process group is gone.
//!
//! Why not just cancel and start: cancelling takes up to the grace period (SIGTERM, then
//! SIGKILL), and two torchcts runs of one manifest at once would write the same results
//! folder and compete for the device. The new run is handed the old run's control and waits
//! for its outcome before it probes or spawns anything (`process::start_after`), so the
//! registry itself never waits: every method returns at once and can be called from any
//! thread or task (a std mutex guards a map; no await while it is held).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::process::{start_after, RunControl, RunHandle};
use super::RunRequest;

#[derive(Debug, Default)]
pub struct RunRegistry {
    runs: Mutex<HashMap<PathBuf, RunControl>>,
}

impl RunRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts `req` for `manifest`. A run of the same manifest that is still going is
    /// cancelled and returned; the new run starts when it has finished. Needs a tokio runtime.
    pub fn start_or_replace(&self, manifest: &Path, req: RunRequest) -> (RunHandle, Option<RunControl>) {
        let key = key(manifest);
        let mut runs = self.runs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let previous = runs.remove(&key).filter(|old| !old.is_finished());
        if let Some(old) = &previous {
            old.cancel();
        }
        let handle = start_after(req, previous.clone());
        runs.insert(key, handle.control());
        (handle, previous)
    }

    /// Cancels the manifest's run; returns it if one was going.
    pub fn cancel(&self, manifest: &Path) -> Option<RunControl> {
        let key = key(manifest);
        let mut runs = self.runs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let run = runs.remove(&key).filter(|run| !run.is_finished())?;
        run.cancel();
        Some(run)
    }

    /// The manifest's run, if one is going.
    pub fn current(&self, manifest: &Path) -> Option<RunControl> {
        let key = key(manifest);
        let runs = self.runs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        runs.get(&key).filter(|run| !run.is_finished()).cloned()
    }

    /// Cancels every run (server shutdown); returns them so the caller can await them.
    pub fn cancel_all(&self) -> Vec<RunControl> {
        let mut runs = self.runs.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let all: Vec<RunControl> = runs.drain().map(|(_, run)| run).filter(|run| !run.is_finished()).collect();
        for run in &all {
            run.cancel();
        }
        all
    }
}

/// One key per file however it is named: the canonical path when the file exists.
fn key(manifest: &Path) -> PathBuf {
    std::fs::canonicalize(manifest).unwrap_or_else(|_| manifest.to_path_buf())
}
