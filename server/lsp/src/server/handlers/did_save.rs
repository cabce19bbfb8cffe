//! `textDocument/didSave`: re-check (a `custom_test_dirs` folder may have appeared on
//! disk), then the opt-in on-save run: never on open, never when the file has errors.

use crate::server::protocol::CommandArgs;
use crate::server::runs::WhenRunning;
use crate::server::session::{Cancel, OnSave, Session};
use torchcts_core::accounting_view::{self as av, RunTarget};
use tower_lsp_server::ls_types::{DidSaveTextDocumentParams, MessageType, Uri};

pub async fn did_save(session: &Session, params: DidSaveTextDocumentParams) {
    let uri = params.text_document.uri;
    crate::server::review_lens::note_head(&uri).await;
    session.refresh(uri.clone()).await;
    run_on_save(session, uri).await;
}

async fn run_on_save(session: &Session, uri: Uri) {
    let settings = session.settings();
    if settings.on_save == OnSave::Off {
        return;
    }
    let Some(snapshot) = session.snapshot(&uri, &Cancel::default()) else { return };
    let analysis = &snapshot.analysis;
    if analysis.findings.iter().any(|f| f.severity == torchcts_core::Severity::Error) {
        session.client.log_message(MessageType::INFO, "torchcts: on-save run skipped: the manifest has errors").await;
        return;
    }
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else { return };
    let facts = av::facts(manifest);
    let previous = {
        let mut state = session.lock();
        let Some(doc) = state.documents.get_mut(&uri) else { return };
        doc.last_run_facts.replace(facts.clone())
    };
    let target = match settings.on_save {
        OnSave::Off => return,
        OnSave::Affected => {
            // First save: nothing to compare with yet; the facts are remembered only.
            let Some(previous) = previous else { return };
            match av::changed_entries_target(session.inventory(), &previous, &facts, settings.device.as_deref()) {
                Some(t) => t,
                None => return,
            }
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
    session.start_run(uri, target, CommandArgs::default(), WhenRunning::Replace).await;
}
