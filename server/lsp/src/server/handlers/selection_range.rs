//! `textDocument/selectionRange`: for each position, the ranges around it over the syntax
//! tree (token, string, list item, list, pair, dict, statement, file).

use crate::server::dispatch;
use crate::server::session::Session;
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{SelectionRange, SelectionRangeParams};

pub async fn selection_range(session: &Session, params: SelectionRangeParams) -> Result<Option<Vec<SelectionRange>>> {
    let requested = params.positions;
    dispatch::on_snapshot(session, "selectionRange", params.text_document.uri, move |_, snapshot, _| {
        let positions = snapshot.positions();
        let tree = &snapshot.analysis.tree;
        // One answer per position, in order, as the protocol asks.
        Some(
            requested
                .iter()
                .map(|&p| {
                    let offset = positions.offset(p);
                    let spans = torchcts_core::navigation::selection_range::selection_ranges(tree, offset);
                    to_proto::selection_range(&positions, &spans, offset)
                })
                .collect(),
        )
    })
    .await
}
