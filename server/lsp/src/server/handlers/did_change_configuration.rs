//! `workspace/didChangeConfiguration`: new settings; a changed inventory path or python reloads the
//! inventory and refreshes every open document, changed `manifests` globs refresh (or
//! silence) every open document, a changed `cpythonCompile` analyses every open document
//! again (CPython's answers apply, or stop applying), the log level and file apply at once.
//!
//! A pull-model client sends `settings: null` (nothing in it): the settings are kept, and
//! pulled with `workspace/configuration` (section `torchcts`) when the client serves it.

use crate::server::handlers::initialize::pull_settings;
use crate::server::session::{Change, Session, Settings};
use tower_lsp_server::ls_types::DidChangeConfigurationParams;

pub async fn did_change_configuration(session: &Session, params: DidChangeConfigurationParams) {
    let pull = session.client_support().pull_configuration;
    let empty = params.settings.is_null() || params.settings.as_object().is_some_and(|o| o.is_empty());
    if !empty || (!params.settings.is_null() && !pull) {
        apply(session, Settings::from_json(&params.settings)).await;
    } else if pull {
        // In a task: the answer comes through the reader this notification came from.
        let session = session.clone();
        tokio::spawn(async move {
            if let Some(settings) = pull_settings(&session).await {
                apply(&session, settings).await;
            }
        });
    }
}

/// Makes `new` the settings: the log at once, the inventory again when what it depends on
/// changed, every open document again when what is a manifest changed.
async fn apply(session: &Session, new: Settings) {
    crate::server::handlers::initialize::apply_log_settings(session, &new).await;
    // The inventory depends on the inventory path and on the environment's torch.
    let old = session.settings();
    let reload = old.inventory_path != new.inventory_path || old.python != new.python;
    let manifests_changed = old.manifests != new.manifests;
    let hints_changed = old.inlay_hints != new.inlay_hints;
    // The counts are for the device and, without a semantic_level, the default level.
    let counts_changed = old.device != new.device || old.default_level != new.default_level;
    // CPython's answers (syntax errors, missing modules) apply, or stop applying, at once:
    // VS Code sends `true` once the workspace is trusted.
    let cpython_changed = old.cpython_compile != new.cpython_compile;
    session.lock().settings = new;
    if reload {
        crate::server::inventory::load_and_refresh(session).await;
    } else if manifests_changed || hints_changed || counts_changed {
        let uris = session.lock().documents.uris();
        session.changed(Change::Counts(uris));
    } else if cpython_changed {
        let uris = session.lock().documents.uris();
        session.changed(Change::Findings(uris));
    }
}
