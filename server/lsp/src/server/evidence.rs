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
use torchcts_core::value::ValueKind;
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
        // Missing ones too: the index reads a missing folder as empty and finds it on a
        // later refresh once a run creates it.
        if !unique.contains(&folder) {
            unique.push(folder);
        }
    }
    unique
}

/// What the runs showed for one entry's tests.
struct Tally<'i> {
    tests: usize,
    passed: usize,
    failed: usize,
    errored: usize,
    skipped: usize,
    missing: usize,
    failures: Vec<&'i runner::evidence::Evidence>,
    newest: Option<&'i runner::evidence::RunInfo>,
    partial: bool,
}

impl<'i> Tally<'i> {
    fn of(index: &'i EvidenceIndex, node_ids: &[String]) -> Tally<'i> {
        let mut t = Tally {
            tests: node_ids.len(),
            passed: 0,
            failed: 0,
            errored: 0,
            skipped: 0,
            missing: 0,
            failures: Vec::new(),
            newest: None,
            partial: false,
        };
        for id in node_ids {
            let Some(e) = index.record(id) else {
                t.missing += 1;
                continue;
            };
            match e.status {
                EvidenceStatus::Passed => t.passed += 1,
                EvidenceStatus::Failed => t.failed += 1,
                EvidenceStatus::Error => t.errored += 1,
                EvidenceStatus::Skipped => t.skipped += 1,
            }
            if matches!(e.status, EvidenceStatus::Failed | EvidenceStatus::Error) {
                t.failures.push(e);
            }
            t.partial |= e.run.partial;
            if t.newest.is_none_or(|n| e.run.timestamp > n.timestamp) {
                t.newest = Some(&e.run);
            }
        }
        t
    }

    fn any(&self) -> bool {
        self.passed + self.failed + self.errored + self.skipped > 0
    }

    /// "cpu: 409 passed · 3 failed · 12 not run yet" (zero counts left out).
    fn line(&self, device: &str) -> String {
        let parts: Vec<String> = [
            (self.passed, "passed"),
            (self.failed, "failed"),
            (self.errored, "errored"),
            (self.skipped, "skipped at run time"),
            (self.missing, "not run yet"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        format!("{device}: {}", parts.join(" · "))
    }
}

/// The index of the manifest at `path` for `device`, refreshed; `None` without result folders.
fn index_for(session: &Session, path: &Path, device: &str) -> Option<Arc<Mutex<EvidenceIndex>>> {
    let key = (path.parent()?.to_path_buf(), device.to_string());
    let known = session.lock().evidence.get(&key).cloned();
    if let Some(index) = known {
        index.lock().unwrap_or_else(|p| p.into_inner()).refresh();
        return Some(index);
    }
    let folders = result_folders(session, path);
    if !folders.iter().any(|f| f.is_dir()) {
        return None;
    }
    // The first read of the folders happens outside the session's lock: it is file IO.
    let index = Arc::new(Mutex::new(EvidenceIndex::read(&folders, device, Limits::default())));
    Some(session.lock().evidence.entry(key).or_insert(index).clone())
}

/// The hover's evidence section for the entry at `offset`, if it is a runnable entry and
/// some result folder has records of its tests on the device.
pub fn hover_markdown(session: &Session, uri: &Uri, analysis: &Analysis, offset: usize) -> Option<String> {
    let path = uri.to_file_path()?.into_owned();
    let manifest = analysis.model.manifest.as_ref()?.as_dict()?;
    let facts = session.facts_for(uri, manifest);
    let located = torchcts_core::locate::locate(&analysis.tree, &analysis.text, offset)?;
    if !torchcts_core::runnable::is_runnable_entry(&located, &facts) {
        return None;
    }
    let device_setting = session.settings_for(uri).device;
    let target = av::run_target(session.inventory(), manifest, Some(&located), device_setting.as_deref());
    let node_ids = target.node_ids?;
    let index = index_for(session, &path, &target.device)?;
    let index = index.lock().unwrap_or_else(|p| p.into_inner());
    let tally = Tally::of(&index, &node_ids);
    tally.any().then(|| render(&tally, &target.device, &target.label))
}

/// For each dtype and capability entry that decides tests (only claimed ones: `True` or a
/// dtype regex, when `claimed_only`), `f` of its key span, run target and tally.
fn per_entry<T>(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    claimed_only: bool,
    mut f: impl FnMut(std::ops::Range<usize>, av::RunTarget, &Tally) -> Option<T>,
) -> Vec<T> {
    let mut out = Vec::new();
    let (Some(path), Some(manifest)) =
        (uri.to_file_path().map(|p| p.into_owned()), analysis.model.manifest.as_ref().and_then(|m| m.as_dict()))
    else {
        return out;
    };
    let facts = session.facts_for(uri, manifest);
    let device_setting = session.settings_for(uri).device;
    let device = facts.resolve_device(device_setting.as_deref());
    let Some(index) = index_for(session, &path, &device) else { return out };
    let index = index.lock().unwrap_or_else(|p| p.into_inner());
    let entries = ["supported_dtypes", "capabilities"]
        .iter()
        .filter_map(|section| manifest.get(section).and_then(|e| e.value.as_dict()))
        .flat_map(|d| d.entries.iter())
        .filter(|e| !claimed_only || matches!(e.value.kind, ValueKind::Bool(true) | ValueKind::Str(_)));
    for entry in entries {
        let span = entry.key.span.clone();
        let Some(located) = torchcts_core::locate::locate(&analysis.tree, &analysis.text, span.start) else { continue };
        if !torchcts_core::runnable::is_runnable_entry(&located, &facts) {
            continue;
        }
        let target = av::run_target(session.inventory(), manifest, Some(&located), device_setting.as_deref());
        let Some(node_ids) = target.node_ids.clone() else { continue };
        let tally = Tally::of(&index, &node_ids);
        out.extend(f(span, target, &tally));
    }
    out
}

/// Per dtype and capability entry with records: (the entry key's span, the lens line).
pub fn entry_lines(session: &Session, uri: &Uri, analysis: &Analysis) -> Vec<(std::ops::Range<usize>, String)> {
    per_entry(session, uri, analysis, false, |span, target, tally| {
        tally.any().then(|| (span, tally.line(&target.device)))
    })
}

/// Recomputes the claimed-entry warnings of `uri` (on open and save: they read the result
/// folders and ask the accounting per entry, too much for every keystroke) and republishes
/// when they changed.
pub async fn update_warnings(session: &Session, uri: &Uri) {
    let Some(snapshot) = session.snapshot(uri, &crate::server::session::Cancel::default()) else { return };
    let warnings = claimed_entry_warnings(session, uri, &snapshot.analysis);
    let changed = {
        let mut state = session.lock();
        let Some(doc) = state.documents.get_mut(uri) else { return };
        let changed = doc.evidence_warnings != warnings;
        doc.evidence_warnings = warnings;
        changed
    };
    if changed {
        crate::server::diagnostics::refresh(session, uri.clone()).await;
    }
}

/// The release reviewer's question (issue 26, item 3): entries the manifest claims (`True`, a
/// dtype regex) whose tests failed or errored in the newest records on the device. (key
/// path, message) per entry, anchored again by the diagnostics on every analysis.
pub fn claimed_entry_warnings(session: &Session, uri: &Uri, analysis: &Analysis) -> Vec<(Vec<String>, String)> {
    per_entry(session, uri, analysis, true, |_, target, tally| {
        let bad = tally.failed + tally.errored;
        if bad == 0 {
            return None;
        }
        let first: Vec<String> = tally.failures.iter().take(3).map(|e| format!("`{}`", e.node_id)).collect();
        let message = format!(
            "{bad} of the tests {} lets in failed or errored in the newest runs on `{}`{}: {}{}",
            target.label,
            target.device,
            tally.newest.and_then(|r| r.timestamp.as_deref()).map(|t| format!(" (newest {t})")).unwrap_or_default(),
            first.join(", "),
            if bad > first.len() { ", ..." } else { "" }
        );
        Some((target.anchor, message))
    })
}

fn render(t: &Tally, device: &str, label: &str) -> String {
    let mut out = format!("**Runs on `{device}`** ({label}, {} tests): {}\n", t.tests, t.line(device));
    if let Some(run) = t.newest {
        out.push_str(&format!(
            "\nNewest run {} (torch {}, {}){}.\n",
            run.timestamp.as_deref().unwrap_or("(no time)"),
            run.torch_version.as_deref().unwrap_or("?"),
            run.hardware_key.as_deref().unwrap_or("?"),
            if t.partial { "; a run that did not complete counts for the tests it reached" } else { "" }
        ));
    }
    if !t.failures.is_empty() {
        out.push('\n');
        for e in t.failures.iter().take(5) {
            let status = if e.status == EvidenceStatus::Failed { "FAIL" } else { "ERROR" };
            out.push_str(&format!("- {status} `{}`: {}\n", e.node_id, e.error.as_deref().unwrap_or("")));
        }
        if t.failures.len() > 5 {
            out.push_str(&format!("- … and {} more\n", t.failures.len() - 5));
        }
    }
    out
}
