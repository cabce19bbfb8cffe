//! `textDocument/foldingRange`: the manifest's dicts and lists that span lines.

use crate::server::analysis::Snapshot;
use crate::server::dispatch;
use crate::server::session::Session;
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{FoldingRange, FoldingRangeParams};

pub async fn folding_range(session: &Session, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
    let uri = params.text_document.uri;
    dispatch::on_snapshot(session, "foldingRange", uri, |session, snapshot, _| folding_range_now(session, snapshot))
        .await
}

fn folding_range_now(session: &Session, snapshot: &Snapshot) -> Option<Vec<FoldingRange>> {
    let analysis = &snapshot.analysis;
    let spans = torchcts_core::symbols::folding_ranges(&analysis.tree, &analysis.text);
    let positions = snapshot.positions();
    let client = session.client_support();
    Some(spans.iter().filter_map(|span| to_proto::folding_range(&client, &positions, span)).collect())
}
