//! The core's [`EvidenceLookup`] over the runner's evidence index: the IO layer's records
//! handed to the pure per-entry attribution (`torchcts_core::evidence`). Each run is named by
//! a caller's function (the support record shows artifacts relative to their results folder;
//! no absolute path of the machine), and error texts are cleaned once by the caller's function.

use runner::evidence::{EvidenceIndex, EvidenceStatus, RunInfo};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use torchcts_core::evidence::{EvidenceLookup, EvidenceRun, TestRecord, TestStatus};

pub struct IndexLookup<'i> {
    index: &'i EvidenceIndex,
    runs: HashMap<*const RunInfo, EvidenceRun>,
    /// Cleaned first error lines, by the record's address in the index.
    errors: HashMap<*const runner::evidence::Evidence, String>,
}

pub fn test_status(status: EvidenceStatus) -> TestStatus {
    match status {
        EvidenceStatus::Passed => TestStatus::Passed,
        EvidenceStatus::Failed => TestStatus::Failed,
        EvidenceStatus::Error => TestStatus::Errored,
        EvidenceStatus::Skipped => TestStatus::Skipped,
    }
}

impl<'i> IndexLookup<'i> {
    /// `name`: how an artifact path is shown; `clean`: what an error text becomes.
    pub fn new(index: &'i EvidenceIndex, name: &dyn Fn(&Path) -> String, clean: &dyn Fn(&str) -> String) -> Self {
        let runs = index
            .runs()
            .iter()
            .map(|run| {
                let report = report_beside(&run.path).map(|p| name(&p));
                let evidence_run = EvidenceRun {
                    artifact: name(&run.path),
                    report,
                    timestamp: run.timestamp.clone(),
                    torch_version: run.torch_version.clone(),
                    hardware: run.hardware_key.clone(),
                    partial: run.partial,
                };
                (Arc::as_ptr(run), evidence_run)
            })
            .collect();
        let errors =
            index.records().filter_map(|(_, e)| e.error.as_deref().map(|text| (e as *const _, clean(text)))).collect();
        IndexLookup { index, runs, errors }
    }
}

/// `<hardware>_report.md` of the results folder an artifact belongs to (`torchcts run` writes
/// it beside `_latest.json`; a history file's is one folder up).
fn report_beside(artifact: &Path) -> Option<std::path::PathBuf> {
    let hardware = artifact.parent()?.file_name()?.to_str()?.strip_suffix("_history").map(str::to_string);
    let (folder, hardware) = match hardware {
        Some(h) => (artifact.parent()?.parent()?, h),
        None => (artifact.parent()?, artifact.file_name()?.to_str()?.strip_suffix("_latest.json")?.to_string()),
    };
    let report = folder.join(format!("{hardware}_report.md"));
    report.is_file().then_some(report)
}

impl EvidenceLookup for IndexLookup<'_> {
    fn record(&self, node_id: &str) -> Option<TestRecord<'_>> {
        let e = self.index.record(node_id)?;
        Some(TestRecord {
            node_id: &e.node_id,
            status: test_status(e.status),
            error: self.errors.get(&(e as *const _)).map(String::as_str),
            tested_at: e.tested_at.as_deref(),
            run: self.runs.get(&Arc::as_ptr(&e.run))?,
        })
    }
}
