//! `workspace/didChangeWorkspaceFolders`: folders added and removed (multi-root). What
//! is a manifest depends on them (`manifests` globs are relative to a folder), so every open
//! document is refreshed or silenced; a run looks for a `.venv` in its manifest's folder.

use crate::server::log::Level;
use crate::server::session::Session;
use tower_lsp_server::ls_types::DidChangeWorkspaceFoldersParams;

pub async fn did_change_workspace_folders(session: &Session, params: DidChangeWorkspaceFoldersParams) {
    let folders = {
        let mut state = session.lock();
        for removed in &params.event.removed {
            if let Some(path) = removed.uri.to_file_path() {
                state.folders.remove(&path);
            }
        }
        for added in &params.event.added {
            if let Some(path) = added.uri.to_file_path() {
                state.folders.add(path.into_owned());
            }
        }
        state.folders.all().to_vec()
    };
    session.log(Level::Debug, format!("workspace folders: {folders:?}")).await;
    crate::server::diagnostics::refresh_all(session).await;
}
