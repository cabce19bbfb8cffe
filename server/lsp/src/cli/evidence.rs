//! `--results DIR` of `check` and `analyze` (issue 26): the records of earlier torchcts runs
//! (a `results` folder, an artifact downloaded from CI) as evidence on the manifest's
//! entries. Only the folders named (flags, then pyproject.toml `results`) are read, so a
//! CI's output does not change with whatever lies beside the manifest.

use super::output::errln;
use crate::host::evidence_io::{entries_and_notes, IndexLookup};
use crate::host::project_config::ProjectConfig;
use runner::evidence::{EvidenceIndex, Limits};
use std::path::{Path, PathBuf};
use torchcts_core::accounting_view::Inventory;
use torchcts_core::evidence::{EntryEvidence, EvidenceNote};
use torchcts_core::Analysis;

/// `--results DIR`, on `check` and `analyze`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct ResultsArgs {
    /// A folder of torchcts run results (`torchcts run --results-dir`, e.g. an artifact
    /// downloaded from CI): each entry's tests' newest records there become findings
    /// (`run-evidence`, `skip-op-passes`, `stale-evidence`, `evidence-other-torch`);
    /// repeatable; pyproject.toml `results` adds its folders
    #[arg(long = "results", value_name = "DIR")]
    pub results: Vec<PathBuf>,
}

impl ResultsArgs {
    /// The folders to read for a manifest: the flags', then the project configuration's.
    pub fn folders(&self, config: Option<&ProjectConfig>) -> Vec<PathBuf> {
        let mut folders = self.results.clone();
        for folder in config.and_then(|c| c.results.as_ref()).map(|r| r.value.as_slice()).unwrap_or_default() {
            if !folders.contains(folder) {
                folders.push(folder.clone());
            }
        }
        folders
    }
}

/// What the folders showed for one manifest.
pub struct Evidence {
    pub device: String,
    pub entries: Vec<EntryEvidence>,
    pub notes: Vec<EvidenceNote>,
    /// Runs on the device that gave records.
    pub runs: usize,
}

/// Reads `folders` for the manifest at `path` (analysed as `analysis`) on its device;
/// `None` without folders or a manifest dict. Files that cannot be used are said on
/// stderr (`Note: results: PATH: why`), once each, and skipped.
pub fn read(
    folders: &[PathBuf],
    path: Option<&Path>,
    analysis: &Analysis,
    inventory: &Inventory,
    device_override: Option<&str>,
    env_torch: Option<&str>,
) -> Option<Evidence> {
    if folders.is_empty() {
        return None;
    }
    let manifest = analysis.model.manifest.as_ref()?.as_dict()?;
    let device = torchcts_core::accounting_view::facts(manifest).resolve_device(device_override);
    for missing in folders.iter().filter(|f| !f.is_dir()) {
        errln!("Note: results: {} is not a folder; no records read from it", missing.display());
    }
    let index = EvidenceIndex::read(folders, &device, Limits::default());
    for problem in index.problems() {
        errln!("Note: results: {}: {}", problem.path.display(), problem.message);
    }
    if index.omitted() > 0 {
        errln!(
            "Note: results: {} older history files not read (the newest {} per folder are)",
            index.omitted(),
            Limits::default().max_history_files
        );
    }
    let now = Some(crate::host::ledger_warnings::now_seconds());
    let lookup = IndexLookup::new(&index);
    let (entries, notes) = entries_and_notes(inventory, analysis, path, device_override, &lookup, env_torch, now);
    Some(Evidence { device, entries, notes, runs: index.runs().len() })
}

/// The evidence of one input, its findings placed by a new analysis of its text (which
/// replaces `analysis`; `inventory` as the command analysed with): `None` without folders,
/// or when the manifest does not evaluate to a dict.
pub fn apply(
    results: &ResultsArgs,
    input: &super::inputs::Input,
    config: Option<&ProjectConfig>,
    flags: &super::AccountingArgs,
    analysis: &mut Analysis,
    inventory: Option<&Inventory>,
) -> Option<Evidence> {
    let folders = results.folders(config);
    if folders.is_empty() {
        return None;
    }
    let counted = match flags.load_inventory(&input.path) {
        Ok(inventory) => inventory,
        Err(message) => {
            errln!("Note: results: not read: {message}");
            return None;
        }
    };
    let env_torch = flags.environment(&input.path).torch.clone();
    let path = (!input.stdin).then_some(input.path.as_path());
    let evidence = read(&folders, path, analysis, &counted, flags.device.as_deref(), env_torch.as_deref())?;
    *analysis =
        super::analyze_text_with(&input.path, &analysis.text, inventory, analysis.python, Some(&evidence.notes));
    Some(evidence)
}
