//! `textDocument/didSave`: re-check (a `custom_test_dirs` folder may have appeared on
//! disk), then the opt-in on-save run: never on open, never when the file has errors.

use crate::server::dispatch;
use crate::server::log::Level;
use crate::server::pool::OnPool;
use crate::server::protocol::CommandArgs;
use crate::server::runs::WhenRunning;
use crate::server::session::{Change, OnSave, Session};
use torchcts_core::accounting_view::{self as av, RunTarget};
use tower_lsp_server::ls_types::{DidSaveTextDocumentParams, Uri};

pub async fn did_save(session: &Session, params: DidSaveTextDocumentParams) {
    let uri = params.text_document.uri;
    crate::server::review_lens::note_head(session, &uri).await;
    crate::server::diagnostics::refresh(session, uri.clone()).await;
    session.changed(Change::Evidence(vec![uri.clone()]));
    run_on_save(session, uri).await;
}

async fn run_on_save(session: &Session, uri: Uri) {
    session.read_project_files(&uri).await;
    if session.settings_for(&uri).on_save == OnSave::Off {
        return;
    }
    let work_uri = uri.clone();
    let decided =
        dispatch::background(session, "on-save run", move |session, cancel| on_save_run(session, &work_uri, cancel))
            .await;
    match decided {
        Some(OnSaveRun::Start(target)) => {
            crate::server::runs::start(session, uri, target, CommandArgs::default(), WhenRunning::Replace).await;
        }
        Some(OnSaveRun::SkippedForErrors) => {
            session.log(Level::Info, "torchcts: on-save run skipped: the manifest has errors").await
        }
        None => {}
    }
}

/// What a save starts.
enum OnSaveRun {
    Start(RunTarget),
    /// The manifest has errors: no run.
    SkippedForErrors,
}

/// The run a save of `uri` starts, if any (`None`: nothing to run).
fn on_save_run(session: &Session, uri: &Uri, on_pool: &OnPool) -> Option<OnSaveRun> {
    let settings = session.settings_for(uri);
    let snapshot = crate::server::analysis::snapshot(session, uri, on_pool)?;
    let analysis = &snapshot.analysis;
    if analysis.findings.iter().any(|f| f.severity == torchcts_core::Severity::Error) {
        return Some(OnSaveRun::SkippedForErrors);
    }
    let manifest = analysis.model.manifest.as_ref().and_then(|m| m.as_dict())?;
    let facts = session.facts_for(uri, manifest);
    let previous = session.lock().documents.get_mut(uri)?.last_run_facts.replace(facts.clone());
    let target = match settings.on_save {
        OnSave::Off => return None,
        OnSave::Affected => {
            // First save: nothing to compare with yet; the facts are remembered only.
            av::changed_entries_target(session.inventory(uri), &previous?, &facts, settings.device.as_deref())?
        }
        OnSave::Level => {
            let level = av::LevelSelection::from_manifest(&facts).map(|s| s.max_level()).unwrap_or(3);
            RunTarget {
                label: format!("level {level}"),
                node_ids: None,
                level,
                device: facts.resolve_device(settings.device.as_deref()),
                anchor: vec!["semantic_level".into()],
                scratch_change: None,
            }
        }
    };
    Some(OnSaveRun::Start(target))
}
