//! `textDocument/foldingRange`: the manifest's dicts and lists that span lines.

use crate::server::convert;
use crate::server::session::Session;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{FoldingRange, FoldingRangeParams};

pub async fn folding_range(session: &Session, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
    let Some(snapshot) = session.snapshot(&params.text_document.uri) else { return Ok(None) };
    let analysis = &snapshot.analysis;
    let spans = torchcts_core::symbols::folding_ranges(&analysis.tree, &analysis.text);
    let positions = snapshot.positions();
    Ok(Some(spans.iter().filter_map(|span| convert::folding_range(&positions, span)).collect()))
}
