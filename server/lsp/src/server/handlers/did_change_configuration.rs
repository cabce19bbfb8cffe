//! `workspace/didChangeConfiguration`: new settings; a changed inventory path reloads the
//! inventory and refreshes every open document.

use crate::server::session::{Session, Settings};
use tower_lsp_server::ls_types::DidChangeConfigurationParams;

pub async fn did_change_configuration(session: &Session, params: DidChangeConfigurationParams) {
    let new = Settings::from_json(&params.settings);
    let reload = session.settings().inventory_path != new.inventory_path;
    session.lock().settings = new;
    if reload {
        session.load_inventory_and_refresh().await;
    }
}
