//! `--results DIR` of `check` and `analyze` (issue 26): the records of earlier torchcts runs
//! (a `results` folder, an artifact downloaded from CI) as evidence on the manifest's
//! entries. The reading is the host's (`crate::host::evidence`); this is the flag and the
//! messages. Only the folders named (flags, then pyproject.toml `results`) are read, so a
//! CI's output does not change with whatever lies beside the manifest.

use super::output::errln;
use crate::host::evidence;
pub use crate::host::evidence::Evidence;
use crate::host::project_config::ProjectConfig;
use crate::host::Surroundings;
use std::path::PathBuf;
use std::sync::Arc;
use torchcts_core::accounting_view::Inventory;
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

/// The evidence of one input in the folders `results` and the project configuration name
/// (read by the host, [`crate::host::evidence::read`]), and the analysis of its text with
/// the evidence's findings placed (in `surroundings`, `inventory` as the caller analysed
/// with): `None` without folders, or when the manifest does not evaluate to a dict. `Err`:
/// the inventory to count with cannot load. Prints nothing.
pub fn read(
    results: &ResultsArgs,
    input: &super::inputs::Input,
    config: Option<&ProjectConfig>,
    flags: &super::AccountingArgs,
    analysis: &Analysis,
    inventory: Option<&Inventory>,
    surroundings: &Surroundings,
) -> Result<Option<(Evidence, Analysis)>, String> {
    let folders = results.folders(config);
    if folders.is_empty() {
        return Ok(None);
    }
    let counted = flags.load_inventory(&input.path)?;
    let env_torch = flags.environment(&input.path).torch().map(str::to_string);
    let path = (!input.stdin).then_some(input.path.as_path());
    let Some(evidence) =
        evidence::read(&folders, path, analysis, &counted, flags.device.as_deref(), env_torch.as_deref())
    else {
        return Ok(None);
    };
    let placed = surroundings.clone().with_evidence(Arc::new(evidence.notes.clone()));
    let analysis = placed.analyze_whole(&analysis.text, inventory);
    Ok(Some((evidence, analysis)))
}

/// [`read`] for a command: what cannot be used is said on stderr (`Note: results: PATH:
/// why`), once each, and `analysis` replaced by the one with the evidence placed.
pub fn apply(
    results: &ResultsArgs,
    input: &super::inputs::Input,
    config: Option<&ProjectConfig>,
    flags: &super::AccountingArgs,
    analysis: &mut Analysis,
    inventory: Option<&Inventory>,
    surroundings: &Surroundings,
) -> Option<Evidence> {
    match read(results, input, config, flags, analysis, inventory, surroundings) {
        Ok(Some((evidence, placed))) => {
            for problem in &evidence.problems {
                errln!("Note: results: {problem}");
            }
            let switch = |d: &str| format!("pass `--device {d}`");
            if let Some(note) =
                evidence::other_devices_note(&evidence.device, evidence.runs, &evidence.other_devices, switch)
            {
                errln!("Note: results: {note}");
            }
            *analysis = placed;
            Some(evidence)
        }
        Ok(None) => None,
        Err(message) => {
            errln!("Note: results: not read: {message}");
            None
        }
    }
}
