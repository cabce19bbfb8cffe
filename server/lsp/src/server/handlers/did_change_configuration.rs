//! `workspace/didChangeConfiguration`: new settings; a changed inventory path or python reloads the
//! inventory and refreshes every open document.

use crate::server::session::{Session, Settings};
use tower_lsp_server::ls_types::DidChangeConfigurationParams;

pub async fn did_change_configuration(session: &Session, params: DidChangeConfigurationParams) {
    let new = Settings::from_json(&params.settings);
    // The inventory depends on the inventory path and on the environment's torch.
    let old = session.settings();
    let reload = old.inventory_path != new.inventory_path || old.python != new.python;
    session.lock().settings = new;
    if reload {
        crate::server::inventory::load_and_refresh(session).await;
    }
}
