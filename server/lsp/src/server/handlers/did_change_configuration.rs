//! `workspace/didChangeConfiguration`: new settings; a changed inventory path or python reloads the
//! inventory and refreshes every open document, changed `manifests` globs refresh (or
//! silence) every open document, the log level and file apply at once.

use crate::server::session::{Session, Settings};
use tower_lsp_server::ls_types::DidChangeConfigurationParams;

pub async fn did_change_configuration(session: &Session, params: DidChangeConfigurationParams) {
    let new = Settings::from_json(&params.settings);
    crate::server::handlers::initialize::apply_log_settings(session, &new).await;
    // The inventory depends on the inventory path and on the environment's torch.
    let old = session.settings();
    let reload = old.inventory_path != new.inventory_path || old.python != new.python;
    let manifests_changed = old.manifests != new.manifests;
    session.lock().settings = new;
    if reload {
        crate::server::inventory::load_and_refresh(session).await;
    } else if manifests_changed {
        crate::server::diagnostics::refresh_all(session).await;
    }
}
