//! `textDocument/definition`: where the module-level name under the cursor is bound
//! (`FP16_OPS = ...`, `import torch`, `from m import y`).

use crate::server::analysis::Snapshot;
use crate::server::dispatch;
use crate::server::session::Session;
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{GotoDefinitionParams, GotoDefinitionResponse, Uri};

pub async fn definition(session: &Session, params: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
    let position = params.text_document_position_params;
    let uri = position.text_document.uri;
    dispatch::on_snapshot(session, "definition", uri.clone(), move |_, snapshot, _| {
        definition_now(snapshot, &uri, position.position)
    })
    .await
}

fn definition_now(
    snapshot: &Snapshot,
    uri: &Uri,
    position: tower_lsp_server::ls_types::Position,
) -> Option<GotoDefinitionResponse> {
    let analysis = &snapshot.analysis;
    let positions = snapshot.positions();
    let spans =
        torchcts_core::navigation::definition::definition(&analysis.tree, &analysis.text, positions.offset(position));
    (!spans.is_empty()).then(|| GotoDefinitionResponse::Array(to_proto::locations(&positions, uri, &spans)))
}
