//! `textDocument/foldingRange`: the manifest's dicts and lists that span lines.

use crate::server::convert;
use crate::server::session::{Cancel, Session};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{FoldingRange, FoldingRangeParams};

pub async fn folding_range(session: &Session, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
    Ok(session.off_thread(move |session, cancel| folding_range_now(session, params, cancel)).await)
}

fn folding_range_now(session: &Session, params: FoldingRangeParams, cancel: &Cancel) -> Option<Vec<FoldingRange>> {
    let snapshot = session.snapshot(&params.text_document.uri, cancel)?;
    let analysis = &snapshot.analysis;
    let spans = torchcts_core::symbols::folding_ranges(&analysis.tree, &analysis.text);
    let positions = snapshot.positions();
    Some(spans.iter().filter_map(|span| convert::folding_range(&positions, span)).collect())
}
