//! `textDocument/documentSymbol`: the manifest, its sections and entries as an outline.

use crate::server::analysis::Snapshot;
use crate::server::dispatch;
use crate::server::session::Session;
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{DocumentSymbolParams, DocumentSymbolResponse, Uri};

pub async fn document_symbol(
    session: &Session,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    let uri = params.text_document.uri;
    dispatch::on_snapshot(session, "documentSymbol", uri.clone(), move |session, snapshot, _| {
        document_symbol_now(session, snapshot, &uri)
    })
    .await
}

fn document_symbol_now(session: &Session, snapshot: &Snapshot, uri: &Uri) -> Option<DocumentSymbolResponse> {
    let analysis = &snapshot.analysis;
    let symbols = torchcts_core::symbols::document_symbols(&analysis.tree, &analysis.text);
    let positions = snapshot.positions();
    Some(to_proto::document_symbols(&session.client_support(), &positions, &symbols, uri))
}
