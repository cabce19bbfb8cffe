//! `textDocument/documentHighlight`: the reads and writes of the module-level name under
//! the cursor.

use crate::server::dispatch;
use crate::server::session::Session;
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{DocumentHighlight, DocumentHighlightParams};

pub async fn document_highlight(
    session: &Session,
    params: DocumentHighlightParams,
) -> Result<Option<Vec<DocumentHighlight>>> {
    let position = params.text_document_position_params;
    dispatch::on_snapshot(session, "documentHighlight", position.text_document.uri, move |_, snapshot, _| {
        let analysis = &snapshot.analysis;
        let positions = snapshot.positions();
        let offset = positions.offset(position.position);
        let found = torchcts_core::navigation::highlight::highlights(&analysis.tree, &analysis.text, offset);
        (!found.is_empty()).then(|| found.iter().map(|h| to_proto::document_highlight(&positions, h)).collect())
    })
    .await
}
