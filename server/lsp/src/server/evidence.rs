//! What the runs showed, on the entry under the cursor (issue 26, first slice): the tests the
//! entry lets in (the accounting's own attribution, `accounting_view::run_target`) looked up
//! in the evidence index (`runner::evidence`) of the manifest's result folders: `results/`
//! beside the manifest and at the workspace folder's root, the editor's own
//! `.torchcts-lsp/results`, and the project configuration's `results`. IO: the index reads
//! files, and is refreshed (only changed files re-read) on each question.

use crate::server::session::Session;
use runner::evidence::{EvidenceIndex, EvidenceStatus, Limits};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use torchcts_core::accounting_view as av;
use torchcts_core::Analysis;
use tower_lsp_server::ls_types::Uri;

/// Indexes kept per (manifest folder, device).
pub type EvidenceIndexes = std::collections::HashMap<(PathBuf, String), Arc<Mutex<EvidenceIndex>>>;

/// The result folders of a manifest at `path`.
fn result_folders(session: &Session, path: &Path) -> Vec<PathBuf> {
    let Some(dir) = path.parent() else { return Vec::new() };
    let mut folders = vec![dir.join("results"), dir.join(".torchcts-lsp").join("results")];
    if let Some(root) = session.folder_for(Some(path)) {
        folders.push(root.join("results"));
    }
    if let Some(config) = session.lock().project_configs.for_path(path) {
        folders.extend(config.results.iter().flat_map(|r| r.value.iter().cloned()));
    }
    let mut unique: Vec<PathBuf> = Vec::new();
    for folder in folders {
        if folder.is_dir() && !unique.contains(&folder) {
            unique.push(folder);
        }
    }
    unique
}

/// The hover's evidence section for the entry at `offset`, if it is a runnable entry and
/// some result folder has records of its tests' device.
pub fn hover_markdown(session: &Session, uri: &Uri, analysis: &Analysis, offset: usize) -> Option<String> {
    let path = uri.to_file_path()?.into_owned();
    let manifest = analysis.model.manifest.as_ref()?.as_dict()?;
    let facts = session.facts_for(uri, manifest);
    let located = torchcts_core::locate::locate(&analysis.tree, &analysis.text, offset)?;
    if !torchcts_core::runnable::is_runnable_entry(&located, &facts) {
        return None;
    }
    let folders = result_folders(session, &path);
    if folders.is_empty() {
        return None;
    }
    let device_setting = session.settings_for(uri).device;
    let target = av::run_target(session.inventory(), manifest, Some(&located), device_setting.as_deref());
    let node_ids = target.node_ids?;
    let key = (path.parent()?.to_path_buf(), target.device.clone());
    let index = {
        let mut state = session.lock();
        state
            .evidence
            .entry(key)
            .or_insert_with(|| Arc::new(Mutex::new(EvidenceIndex::read(&folders, &target.device, Limits::default()))))
            .clone()
    };
    let mut index = index.lock().unwrap_or_else(|p| p.into_inner());
    index.refresh();
    Some(render(&index, &node_ids, &target.device, &target.label)).filter(|s| !s.is_empty())
}

fn render(index: &EvidenceIndex, node_ids: &[String], device: &str, label: &str) -> String {
    let (mut passed, mut failed, mut errored, mut skipped, mut missing) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut newest: Option<&runner::evidence::RunInfo> = None;
    let mut partial = false;
    for id in node_ids {
        let Some(e) = index.record(id) else {
            missing += 1;
            continue;
        };
        match e.status {
            EvidenceStatus::Passed => passed += 1,
            EvidenceStatus::Failed => failed += 1,
            EvidenceStatus::Error => errored += 1,
            EvidenceStatus::Skipped => skipped += 1,
        }
        if matches!(e.status, EvidenceStatus::Failed | EvidenceStatus::Error) {
            failures.push(e);
        }
        partial |= e.run.partial;
        if newest.is_none_or(|n| e.run.timestamp > n.timestamp) {
            newest = Some(&e.run);
        }
    }
    if passed + failed + errored + skipped == 0 {
        return String::new();
    }
    let mut out = format!(
        "**Runs on `{device}`** ({label}, {} tests): {passed} passed · {failed} failed · {errored} errored · {skipped} skipped at run time · {missing} not run yet\n",
        node_ids.len()
    );
    if let Some(run) = newest {
        out.push_str(&format!(
            "\nNewest run {} (torch {}, {}){}.\n",
            run.timestamp.as_deref().unwrap_or("(no time)"),
            run.torch_version.as_deref().unwrap_or("?"),
            run.hardware_key.as_deref().unwrap_or("?"),
            if partial { "; a run that did not complete counts for the tests it reached" } else { "" }
        ));
    }
    if !failures.is_empty() {
        out.push('\n');
        for e in failures.iter().take(5) {
            let status = if e.status == EvidenceStatus::Failed { "FAIL" } else { "ERROR" };
            out.push_str(&format!("- {status} `{}`: {}\n", e.node_id, e.error.as_deref().unwrap_or("")));
        }
        if failures.len() > 5 {
            out.push_str(&format!("- … and {} more\n", failures.len() - 5));
        }
    }
    out
}
