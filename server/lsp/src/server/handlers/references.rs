//! `textDocument/references`: every occurrence of the module-level name under the cursor.

use crate::server::dispatch;
use crate::server::session::Session;
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Location, ReferenceParams};

pub async fn references(session: &Session, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let position = params.text_document_position;
    let include_declaration = params.context.include_declaration;
    let uri = position.text_document.uri;
    dispatch::on_snapshot(session, "references", uri.clone(), move |_, snapshot, _| {
        let analysis = &snapshot.analysis;
        let positions = snapshot.positions();
        let offset = positions.offset(position.position);
        let spans = torchcts_core::navigation::references::references(
            &analysis.tree,
            &analysis.text,
            offset,
            include_declaration,
        );
        (!spans.is_empty()).then(|| to_proto::locations(&positions, &uri, &spans))
    })
    .await
}
