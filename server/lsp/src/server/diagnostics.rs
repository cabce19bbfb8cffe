//! From the current text of a document to its published diagnostics: analyse (the host's
//! surroundings, `server/analysis.rs`), ask each feature for its findings (the last test
//! run's, `runs`; "vs HEAD", `review_lens`), recompute the accounting when its facts
//! changed, send `torchcts/status`, publish. Features never publish: they say what changed
//! (`session::Change`) and the refresh loop (`refresh.rs`) calls [`refresh`].
//!
//! Ordering: diagnostics are published under the publish lock and only if their version is
//! still the document's current one, so a burst of edits ends with diagnostics for the last
//! version only.

use crate::server::analysis::{run_analysis, LIVE_ANALYSIS_MAX_BYTES};
use crate::server::log::Level;
use crate::server::pool::{self, guarded, OnPool};
use crate::server::positions::Positions;
use crate::server::session::{Cancel, Session};
use crate::server::{cpython, protocol, runs, to_proto};
use ropey::Rope;
use std::sync::Arc;
use torchcts_core::accounting_view::{self as av, Summary};
use torchcts_core::{Cancellable, Cancelled, Finding, LineIndex, Origin, PositionEncoding, Severity};
use tower_lsp_server::ls_types::{Diagnostic, Uri};
use tree_sitter::Tree;

/// Documents up to this size are analysed on the async worker that received the edit: a
/// hop to the blocking pool and back costs 0.5-1 ms of thread wake-ups (measured over stdio,
/// half the keystroke latency of a typical manifest), more than such an analysis holds the
/// worker (a few ms at this size). Larger ones go to the blocking pool, so a slow document
/// never holds up requests on others.
const INLINE_ANALYSIS_BYTES: usize = 32 * 1024;

/// Analyses the current text of `uri` and publishes diagnostics if still current.
///
/// At most one analysis per document runs at a time (on the blocking pool unless the
/// document is small, see [`INLINE_ANALYSIS_BYTES`]): a refresh
/// asked for meanwhile (the next keystroke) cancels it and marks the document, and the
/// running one stops at its next checkpoint and goes round again with the latest text,
/// so a burst of edits to a large file costs about one analysis, not one per edit, and
/// never holds up other documents.
///
/// A document that is not a manifest (see `session/workspace.rs`) is not analysed and gets
/// no diagnostics; one that stopped being a manifest (a setting or workspace folder
/// changed) has its diagnostics cleared.
pub async fn refresh(session: &Session, uri: Uri) {
    if uri.to_file_path().is_some_and(|p| crate::host::project_ledger::is_ledger_file(&p)) {
        publish_open_ledger(session, &uri).await;
        return;
    }
    // The project's configuration and ledger read on the pool, not here on the loop.
    session.read_project_files(&uri).await;
    if !session.is_manifest(&uri) {
        let analysed = session.lock().documents.get_mut(&uri).is_some_and(|d| {
            d.summary = None;
            d.analysis.take().is_some()
        });
        if analysed {
            session.clear_diagnostics(uri).await;
        }
        return;
    }
    // Only manifests report their project configuration's problems (an editor that sends
    // every Python file must not get them on each of those).
    publish_config_problem(session, &uri).await;
    publish_ledger_problem(session, &uri).await;
    loop {
        let snapshot = {
            let mut state = session.lock();
            let encoding = state.encoding;
            let Some(doc) = state.documents.get_mut(&uri) else { return };
            if let Some(running) = &doc.analysing {
                running.cancel();
                doc.analyse_again = true;
                return;
            }
            let cancel = Cancel::default();
            doc.analysing = Some(cancel.clone());
            (doc.text.clone(), doc.version, doc.revision, doc.tree.take(), encoding, cancel)
        };
        let small = snapshot.0.len_bytes() <= INLINE_ANALYSIS_BYTES;
        let cancel = snapshot.5.clone();
        let worker = session.clone();
        let analysed_uri = uri.clone();
        let analyse = move |on_pool: &OnPool| analyse(&worker, &analysed_uri, snapshot, on_pool);
        // None: the analysis panicked (the core's own panics are caught inside it).
        let published = if small {
            pool::inline("analysis", cancel, analyse)
        } else {
            pool::run("analysis", cancel, move |on_pool| Some(analyse(on_pool))).await
        };
        let again = match session.lock().documents.get_mut(&uri) {
            Some(doc) => {
                doc.analysing = None;
                std::mem::take(&mut doc.analyse_again)
            }
            None => false,
        };
        match published {
            Some(Ok(Some(published))) => publish(session, &uri, published).await,
            // Cancelled by the refresh that asked to go round again.
            Some(Err(Cancelled)) => {}
            _ => {
                let failed = format!("analysis of {} failed; see stderr", uri.as_str());
                session.log(Level::Error, failed).await;
            }
        }
        if !again {
            return;
        }
    }
}

/// Analysis, run findings, review findings and the accounting of one version (on a
/// blocking thread); the document's caches are updated if it is still that version.
/// `Ok(None)` if the core panicked.
fn analyse(session: &Session, uri: &Uri, snapshot: AnalysisJob, on_pool: &OnPool) -> Cancellable<Option<Published>> {
    let (text, version, revision, old_tree, encoding, _) = snapshot;
    let client = session.client_support();
    if text.len_bytes() > LIVE_ANALYSIS_MAX_BYTES {
        let positions = Positions::of_rope(&text, encoding);
        let diagnostics = vec![to_proto::diagnostic(&client, &positions, &too_large(&text), uri)];
        return Ok(Some(Published { version, diagnostics, status: None, question: None }));
    }
    // The surroundings first: they load the project's inventory, if it chooses one.
    let surroundings = crate::server::analysis::surroundings(session, uri, on_pool);
    let inventory = session.inventory_if_ready(uri);
    let Some(analysis) = run_analysis(uri, &surroundings, &text, old_tree.as_ref(), inventory, on_pool)? else {
        return Ok(None);
    };
    on_pool.check()?;
    let uri = uri.clone();
    let positions = Positions::new(&analysis.text, &analysis.line_index, encoding);
    let mut diagnostics: Vec<Diagnostic> = analysis
        .findings
        .iter()
        .filter(|f| !surroundings.ignores(f))
        .map(|f| to_proto::diagnostic(&client, &positions, f, &uri))
        .collect();
    let run_results = session.lock().documents.get(&uri).and_then(|d| d.run_results.clone());
    if let Some(results) = &run_results {
        diagnostics.extend(
            runs::run_findings(&analysis, results).iter().map(|f| to_proto::diagnostic(&client, &positions, f, &uri)),
        );
    }
    let review = crate::server::review_lens::findings(session, &uri, &analysis, inventory);
    diagnostics.extend(review.iter().map(|f| to_proto::diagnostic(&client, &positions, f, &uri)));
    // Accounting is recomputed only when the facts it depends on changed.
    let layout = session.run_layout(&uri);
    let facts = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()).map(|m| {
        let mut facts = session.facts_for(&uri, m);
        facts.layout = layout;
        facts.python = analysis.python;
        facts.project_ledger = session.project_ledger_facts(&uri);
        facts
    });
    let previous = session.lock().documents.get(&uri).and_then(|d| d.summary.clone());
    // Counted on the device runs use: the editor's `device`, else the project's, else the
    // manifest's (the CLI counts the same way).
    let device = session.settings_for(&uri).device;
    let summary: Option<Arc<Summary>> = match (&facts, &previous, inventory) {
        (Some(f), Some(p), _) if p.facts == *f && p.device == f.resolve_device(device.as_deref()) => Some(p.clone()),
        (Some(f), _, Some(inv)) => guarded("accounting", || av::summarize(inv, f, device.as_deref())).map(Arc::new),
        _ => None,
    };
    let changed = match (&summary, &previous) {
        (Some(a), Some(b)) => !Arc::ptr_eq(a, b),
        (Some(_), None) => true,
        _ => false,
    };
    let analysis = Arc::new(analysis);
    let question = cpython::question(&uri, revision, &surroundings, &analysis);
    {
        let mut state = session.lock();
        if let Some(doc) = state.documents.get_mut(&uri) {
            if doc.version == version && doc.revision == revision {
                doc.tree = Some(analysis.tree.clone());
                doc.analysis = Some((version, analysis));
                doc.summary = summary.clone();
            }
        }
    }
    let mut status = None;
    if changed {
        if let Some(s) = &summary {
            let level = av::selected_level(s);
            status = Some(protocol::status_params(
                uri.as_str(),
                level,
                &s.device,
                av::runnable_up_to(s, level),
                av::filtered_up_to(s, level),
                session.counts_for(&uri),
            ));
        }
    }
    Ok(Some(Published { version, diagnostics, status, question }))
}

/// Sends the status (when the counts changed) and the diagnostics, if their version is
/// still the document's.
async fn publish(session: &Session, uri: &Uri, published: Published) {
    if let Some(params) = published.status {
        session.client.send_notification::<protocol::StatusNotification>(params).await;
    }
    let _guard = session.publish_lock().await;
    let current = session.lock().documents.get(uri).map(|d| d.version);
    if current == Some(published.version) {
        session.client.publish_diagnostics(uri.clone(), published.diagnostics, Some(published.version)).await;
        // Asked once the emulation's diagnostics are out, so CPython's, published again for
        // the same version, always come after them.
        if let Some(question) = published.question {
            cpython::ask(session, question);
        }
    }
}

/// What one analysis reads: the text, its version and revision, the previous tree (edited to match), the
/// position encoding and the analysis's cancellation.
type AnalysisJob = (Rope, i32, u64, Option<Tree>, PositionEncoding, Cancel);

/// What one analysis publishes.
struct Published {
    version: i32,
    diagnostics: Vec<Diagnostic>,
    /// `torchcts/status` parameters when the counts changed.
    status: Option<serde_json::Value>,
    /// CPython's `compile()` to ask once these are published (`server/cpython.rs`).
    question: Option<cpython::Question>,
}

/// The one finding of a document over [`LIVE_ANALYSIS_MAX_BYTES`]: its size, the limit
/// and the literal that makes it large. That scan of the lexer runs on every edit of such a
/// document, so only up to 2 MiB (~30 ms; the largest analysis costs ~10x that).
fn too_large(text: &Rope) -> torchcts_core::findings::Finding {
    use torchcts_core::findings::{Finding, Origin, Severity};
    let bytes = text.len_bytes();
    let scanned = (bytes <= 2 << 20).then(|| text.to_string());
    let message = format!(
        "{} Run `torchcts-lsp check` (TORCHCTS_LSP_MAX_BYTES=0 lifts the limit) or `torchcts check-manifest` on it for its findings.",
        torchcts_core::size_limit::too_large_message(bytes, LIVE_ANALYSIS_MAX_BYTES, scanned.as_deref())
    );
    Finding::new(0..0, Severity::Warning, message, torchcts_core::codes::Code::FileTooLarge, Origin::Lsp)
}

/// A `[tool.torchcts-lsp]` table that cannot be read (a bad value, broken TOML) is an error
/// on that `pyproject.toml`, where its value is, published once per read; one that reads
/// well again is cleared.
async fn publish_config_problem(session: &Session, uri: &Uri) {
    let Some(path) = uri.to_file_path() else { return };
    let (problem, cleared) = {
        let mut state = session.lock();
        let mut problem = state.project_configs.error_for(&path);
        let flagged = &mut state.project_configs.flagged;
        let mut cleared = Vec::new();
        match &problem {
            // Published already (this runs on every keystroke).
            Some(e) if flagged.contains(&(e.file.clone(), e.to_string())) => problem = None,
            // New, or another problem of a file flagged before (one error fixed, another made).
            Some(e) => {
                flagged.retain(|(f, _)| *f != e.file);
                flagged.push((e.file.clone(), e.to_string()));
            }
            None => {
                // This document's config reads well: forget files flagged from it before.
                cleared = flagged
                    .iter()
                    .map(|(f, _)| f)
                    .filter(|f| path.ancestors().any(|a| Some(a) == f.parent()))
                    .cloned()
                    .collect();
                flagged.retain(|(f, _)| !cleared.contains(f));
            }
        }
        (problem, cleared)
    };
    for file in cleared {
        if let Some(config_uri) = Uri::from_file_path(&file) {
            session.client.publish_diagnostics(config_uri, Vec::new(), None).await;
        }
    }
    let Some(e) = problem else { return };
    let Some(config_uri) = Uri::from_file_path(&e.file) else { return };
    let text = std::fs::read_to_string(&e.file).unwrap_or_default();
    let index = LineIndex::new(&text);
    let encoding = session.lock().encoding;
    let positions = Positions::new(&text, &index, encoding);
    let span = e.span.clone().unwrap_or(0..0);
    let message = match &e.key {
        Some(key) => format!("[tool.torchcts-lsp] {key}: {}", e.message),
        None => format!("[tool.torchcts-lsp]: {}", e.message),
    };
    let finding = Finding::new(span, Severity::Error, message, torchcts_core::codes::Code::ProjectConfig, Origin::Lsp);
    let diagnostic = to_proto::diagnostic(&session.client_support(), &positions, &finding, &config_uri);
    session.client.publish_diagnostics(config_uri, vec![diagnostic], None).await;
}

/// A project `known_segfaults.json` open in the editor: torchcts' verdict on its text as it
/// is (an error where torchcts stops, none when it reads well).
async fn publish_open_ledger(session: &Session, uri: &Uri) {
    let Some(path) = uri.to_file_path() else { return };
    let (torchcts, _) = session.counted_versions(uri);
    let (text, version, encoding) = {
        let state = session.lock();
        let Some(doc) = state.documents.get(uri) else { return };
        (doc.text.clone(), doc.version, state.encoding)
    };
    // A ledger is read whole; its positions from the same text.
    let text = text.to_string();
    let finding = crate::host::project_ledger::parse(&path, text.as_bytes(), &torchcts).err().map(ledger_finding);
    let index = LineIndex::new(&text);
    let positions = Positions::new(&text, &index, encoding);
    let diagnostics =
        finding.iter().map(|f| to_proto::diagnostic(&session.client_support(), &positions, f, uri)).collect();
    session.client.publish_diagnostics(uri.clone(), diagnostics, Some(version)).await;
}

fn ledger_finding(problem: crate::host::project_ledger::LedgerProblem) -> Finding {
    Finding::new(
        problem.range,
        Severity::Error,
        problem.message,
        torchcts_core::codes::Code::KnownSegfaultLedger,
        Origin::Torchcts,
    )
}

/// The project ledger beside a manifest that torchcts refuses is an error on that file
/// (published once per read, unless the file is open: its own text is checked then); one
/// that reads well again is cleared.
async fn publish_ledger_problem(session: &Session, uri: &Uri) {
    let Some(path) = uri.to_file_path() else { return };
    let file = crate::host::project_ledger::file_for(&path);
    let Some(ledger_uri) = Uri::from_file_path(&file) else { return };
    let problem = session.project_ledger(uri).err();
    let publish = {
        let mut state = session.lock();
        let open = state.documents.get(&ledger_uri).is_some();
        let flagged = &mut state.ledgers.flagged;
        let was_flagged = flagged.contains(&file);
        match &problem {
            Some(_) if open || was_flagged => None,
            Some(_) => {
                flagged.push(file.clone());
                Some(true)
            }
            None if was_flagged => {
                flagged.retain(|f| *f != file);
                (!open).then_some(false)
            }
            None => None,
        }
    };
    match (publish, problem) {
        (Some(true), Some(problem)) => {
            let text = std::fs::read(&file).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
            let index = LineIndex::new(&text);
            let encoding = session.lock().encoding;
            let positions = Positions::new(&text, &index, encoding);
            let diagnostic =
                to_proto::diagnostic(&session.client_support(), &positions, &ledger_finding(problem), &ledger_uri);
            session.client.publish_diagnostics(ledger_uri, vec![diagnostic], None).await;
        }
        (Some(false), _) => session.client.publish_diagnostics(ledger_uri, Vec::new(), None).await,
        _ => {}
    }
}

/// Refreshes every open document: after a change of what is a manifest (the `manifests`
/// setting, the workspace folders), each is analysed, or cleared and left silent.
pub async fn refresh_all(session: &Session) {
    let uris = session.lock().documents.uris();
    for uri in uris {
        refresh(session, uri).await;
    }
}
