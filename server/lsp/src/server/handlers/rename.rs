//! `textDocument/rename`: every occurrence of a module-level name renamed (an import gains
//! an alias), or an error saying why not (the core's checks of the name and the new name).

use crate::server::dispatch;
use crate::server::session::Session;
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{RenameParams, WorkspaceEdit};

pub async fn rename(session: &Session, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let position = params.text_document_position;
    let new_name = params.new_name;
    let uri = position.text_document.uri;
    let answer = dispatch::on_snapshot(session, "rename", uri.clone(), move |_, snapshot, _| {
        let analysis = &snapshot.analysis;
        let positions = snapshot.positions();
        let offset = positions.offset(position.position);
        Some(
            torchcts_core::navigation::rename::rename(&analysis.tree, &analysis.text, offset, &new_name)
                .map(|edits| edits.map(|edits| to_proto::workspace_edit(&positions, &uri, &edits))),
        )
    })
    .await?;
    match answer {
        None => Ok(None),
        Some(Ok(edit)) => Ok(edit),
        Some(Err(refused)) => Err(Error::invalid_params(refused.0)),
    }
}
