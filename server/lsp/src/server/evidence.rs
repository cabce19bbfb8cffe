//! What the runs showed, on the manifest's entries (issue 26): the LSP glue of
//! `torchcts_core::evidence`. The IO is the host's (`crate::host::evidence`: the manifest's
//! result folders, `results/` beside the manifest and at the workspace folder's root, the
//! editor's own `.torchcts-lsp/results`, the project configuration's `results`; the index
//! kept per folder and device and refreshed per question; git blame line times; the clock).
//! Everything here reads files, so it takes an [`OnPool`]: it runs through `dispatch`,
//! never on the request loop. The core counts and words the rest.

use crate::host::evidence::{result_folders, IndexLookup};
use crate::server::pool::OnPool;
use crate::server::session::documents::{EvidenceLensCache, EvidenceLensEntry};
use crate::server::session::Session;
use runner::evidence::EvidenceIndex;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use torchcts_core::evidence::{self, EntryEvidence, EvidenceLookup};
use torchcts_core::Analysis;
use tower_lsp_server::ls_types::Uri;

/// The index of the manifest at `path` for `device`, refreshed; `None` without result folders.
fn index_for(session: &Session, path: &Path, device: &str, _: &OnPool) -> Option<Arc<Mutex<EvidenceIndex>>> {
    let root = session.folder_for(Some(path));
    let extra: Vec<PathBuf> = session
        .lock()
        .project_configs
        .for_path(path)
        .and_then(|c| c.results.as_ref().map(|r| r.value.clone()))
        .unwrap_or_default();
    let folders = result_folders(path, root.as_deref(), &extra);
    let (index, read) = session.evidence.index(path, device, &folders)?;
    if read > 0 && crate::server::log::enabled(crate::server::log::Level::Debug) {
        // What a refresh costs, for the log file at debug level (a test reads it: after one
        // new history file the refresh reads that file alone).
        let line = format!("evidence: {read} results files read for {} on {device}", path.display());
        crate::server::log::to_file(crate::server::log::Level::Debug, &line);
    }
    Some(index)
}

/// The device setting and the refreshed evidence index of `uri`'s manifest on its device;
/// `None` when the document is no file, has no manifest dict or no result folders.
fn index_of(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    on_pool: &OnPool,
) -> Option<(Option<String>, Arc<Mutex<EvidenceIndex>>)> {
    let path = uri.to_file_path()?.into_owned();
    let manifest = analysis.model.manifest.as_ref()?.as_dict()?;
    let device_setting = session.settings_for(uri).device;
    let device = session.facts_for(uri, manifest).resolve_device(device_setting.as_deref());
    let index = index_for(session, &path, &device, on_pool)?;
    Some((device_setting, index))
}

/// `f` of the device setting and the evidence of `uri`'s manifest on its device; `None`
/// when the document is no file, has no manifest dict or no result folders.
fn with_evidence<T>(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    on_pool: &OnPool,
    f: impl FnOnce(Option<&str>, &dyn EvidenceLookup) -> T,
) -> Option<T> {
    let (device_setting, index) = index_of(session, uri, analysis, on_pool)?;
    let index = index.lock().unwrap_or_else(|p| p.into_inner());
    Some(f(device_setting.as_deref(), &IndexLookup::new(&index)))
}

/// The hover's evidence section for the entry at `offset`, when some of its tests have a
/// record on the device.
pub fn hover_markdown(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    offset: usize,
    on_pool: &OnPool,
) -> Option<String> {
    let now = Some(crate::host::clock::now_seconds());
    let (device_setting, index) = index_of(session, uri, analysis, on_pool)?;
    let index = index.lock().unwrap_or_else(|p| p.into_inner());
    let lookup = IndexLookup::new(&index);
    let entry =
        evidence::entry_tally_at(session.inventory(uri), analysis, device_setting.as_deref(), &lookup, now, offset)?;
    if entry.tally.any() {
        return Some(render(&entry));
    }
    // Records on other devices only: say so, not nothing.
    let switch = |d: &str| format!("set the `device` setting to `{d}`");
    crate::host::evidence::other_devices_note(&entry.device, index.runs().len(), index.other_devices(), switch)
        .map(|note| format!("**Runs**: {note}."))
}

/// Every entry with records: (the entry's span, the lens line). The counts are kept on the
/// document ([`EvidenceLensCache`]) while the facts, the entries, the device setting, the
/// inventory and the evidence index's version stay: a request then costs the index's refresh
/// (listing the result folders) and the lines' words, not two accountings per entry.
pub fn entry_lines(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    on_pool: &OnPool,
) -> Vec<(std::ops::Range<usize>, String)> {
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else { return Vec::new() };
    let Some((device_setting, index)) = index_of(session, uri, analysis, on_pool) else { return Vec::new() };
    let entries = evidence::entries(analysis);
    let inventory = session.inventory(uri);
    let facts = torchcts_core::accounting_view::facts(manifest);
    let kept = session.lock().documents.get(uri).and_then(|d| d.evidence_lens.clone());
    let counts = {
        let index_now = index.lock().unwrap_or_else(|p| p.into_inner());
        let version = index_now.version();
        let holds = |c: &EvidenceLensCache| {
            c.version == version
                && std::sync::Weak::ptr_eq(&c.index, &Arc::downgrade(&index))
                && std::ptr::eq(c.inventory, inventory)
                && c.device_setting == device_setting
                && c.facts == facts
                && c.entries.len() == entries.len()
                && c.entries.iter().zip(&entries).all(|(k, e)| k.kind == e.kind && k.key_path == e.key_path)
        };
        match kept.filter(|c| holds(c)) {
            Some(kept) => kept,
            None => {
                let lookup = IndexLookup::new(&index_now);
                let tallies = evidence::entry_tallies(inventory, analysis, device_setting.as_deref(), &lookup, None);
                let cache = Arc::new(lens_cache(&entries, tallies, facts, device_setting, inventory, &index, version));
                if let Some(doc) = session.lock().documents.get_mut(uri) {
                    doc.evidence_lens = Some(cache.clone());
                }
                cache
            }
        }
    };
    let now = Some(crate::host::clock::now_seconds());
    entries
        .iter()
        .zip(&counts.entries)
        .filter_map(|(entry, kept)| {
            let (device, tally) = kept.counts.as_ref()?;
            let mut tally = tally.clone();
            tally.set_age(now);
            tally.any().then(|| (entry.span.clone(), tally.line(device)))
        })
        .collect()
}

/// The counts of `tallies` (from `entry_tallies`, a subsequence of `entries`, matched by
/// span) kept for the lens, with what they were computed from.
fn lens_cache(
    entries: &[evidence::EntryRef],
    tallies: Vec<EntryEvidence>,
    facts: torchcts_core::accounting_view::ManifestFacts,
    device_setting: Option<String>,
    inventory: &'static torchcts_core::accounting_view::Inventory,
    index: &Arc<Mutex<EvidenceIndex>>,
    version: u64,
) -> EvidenceLensCache {
    let mut tallies = tallies.into_iter().peekable();
    let entries = entries
        .iter()
        .map(|entry| {
            let counts = tallies.next_if(|t| t.entry.span == entry.span).map(|mut t| {
                t.tally.failures = Vec::new();
                (t.device, t.tally)
            });
            EvidenceLensEntry { kind: entry.kind, key_path: entry.key_path.clone(), counts }
        })
        .collect();
    EvidenceLensCache { facts, device_setting, inventory, index: Arc::downgrade(index), version, entries }
}

/// Recomputes the evidence findings of `uri` (on open, save and when result files change:
/// they read the result folders, run git blame and ask the accounting per entry, too much
/// for every keystroke); `true` when they changed (the caller analyses again).
pub fn update_warnings(session: &Session, uri: &Uri, on_pool: &OnPool) -> bool {
    let Some(snapshot) = crate::server::analysis::snapshot(session, uri, on_pool) else { return false };
    let notes = notes(session, uri, &snapshot.analysis, on_pool);
    let mut state = session.lock();
    let Some(doc) = state.documents.get_mut(uri) else { return false };
    let changed = *doc.evidence_notes != notes;
    doc.evidence_notes = Arc::new(notes);
    changed
}

/// The evidence findings of the analysed manifest (issue 26, item 3).
fn notes(session: &Session, uri: &Uri, analysis: &Analysis, on_pool: &OnPool) -> Vec<evidence::EvidenceNote> {
    let environment_torch = {
        let state = session.lock();
        state.embedded.as_ref().filter(|c| c.note.is_none()).map(|c| c.torch.clone())
    };
    let path = uri.to_file_path().map(|p| p.into_owned());
    let now = Some(crate::host::clock::now_seconds());
    with_evidence(session, uri, analysis, on_pool, |device, lookup| {
        let inventory = session.inventory(uri);
        let torch = environment_torch.as_deref();
        crate::host::evidence::entries_and_notes(inventory, analysis, path.as_deref(), device, lookup, torch, now).1
    })
    .unwrap_or_default()
}

/// A path as a link target the editors open (`file:///...`).
fn file_link(label: &str, path: &str) -> String {
    match Uri::from_file_path(path) {
        Some(uri) => format!("[{label}]({})", uri.as_str()),
        None => format!("{label} {}", torchcts_core::markdown::code_span(path)),
    }
}

/// The run's artifact and report, as links.
fn run_links(run: &evidence::EvidenceRun) -> String {
    let mut links = vec![file_link("artifact", &run.artifact)];
    links.extend(run.report.as_deref().map(|r| file_link("report", r)));
    links.join(" · ")
}

fn render(e: &EntryEvidence) -> String {
    use torchcts_core::markdown::{code_span, escape_text};
    let t = &e.tally;
    let mut out = format!("**Runs on {}** ({}, {} tests): {}\n", code_span(&e.device), e.label, t.tests, e.line());
    if let Some(run) = &t.newest {
        out.push_str(&format!(
            "\nNewest run {} (torch {}, {}): {}{}.\n",
            escape_text(run.timestamp.as_deref().unwrap_or("(no time)")),
            escape_text(run.torch_version.as_deref().unwrap_or("?")),
            escape_text(run.hardware.as_deref().unwrap_or("?")),
            run_links(run),
            if t.partial { "; a run that did not complete counts for the tests it reached" } else { "" }
        ));
    }
    if e.entry.kind == evidence::EntryKind::ToleranceOverride {
        out.push_str("\nCounted: the OpInfo tests comparing under this category and dtype (other tests pick their category in their own code).\n");
    }
    if !t.failures.is_empty() {
        out.push('\n');
        for f in t.failures.iter().take(5) {
            let status = f.status.record_word();
            out.push_str(&format!(
                "- {status} {}: {} ({}, torch {}, {}; {})\n",
                code_span(&f.node_id),
                escape_text(f.error.as_deref().unwrap_or("(no message)")),
                escape_text(f.tested_at.as_deref().unwrap_or("no time")),
                escape_text(f.run.torch_version.as_deref().unwrap_or("?")),
                escape_text(f.run.hardware.as_deref().unwrap_or("?")),
                run_links(&f.run)
            ));
        }
        if t.failures.len() > 5 {
            out.push_str(&format!("- … and {} more\n", t.failures.len() - 5));
        }
    }
    out
}
