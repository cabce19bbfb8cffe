//! `textDocument/prepareRename`: the module-level name under the cursor and its range, or
//! an error saying why it cannot be renamed (shown by the editor).

use crate::server::dispatch;
use crate::server::session::Session;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{PrepareRenameResponse, TextDocumentPositionParams};

pub async fn prepare_rename(
    session: &Session,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    let answer = dispatch::on_snapshot(session, "prepareRename", params.text_document.uri, move |_, snapshot, _| {
        let analysis = &snapshot.analysis;
        let positions = snapshot.positions();
        let offset = positions.offset(params.position);
        Some(torchcts_core::navigation::rename::prepare_rename(&analysis.tree, &analysis.text, offset).map(|found| {
            found.map(|(span, name)| PrepareRenameResponse::RangeWithPlaceholder {
                range: positions.range(&span),
                placeholder: name,
            })
        }))
    })
    .await?;
    match answer {
        None => Ok(None),
        Some(Ok(found)) => Ok(found),
        Some(Err(refused)) => Err(Error::invalid_params(refused.0)),
    }
}
