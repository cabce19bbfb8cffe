//! `textDocument/documentSymbol`: the manifest, its sections and entries as an outline.

use crate::server::convert;
use crate::server::session::{Cancel, Session};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{DocumentSymbolParams, DocumentSymbolResponse};

pub async fn document_symbol(
    session: &Session,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    Ok(session.off_thread(move |session, cancel| document_symbol_now(session, params, cancel)).await)
}

fn document_symbol_now(
    session: &Session,
    params: DocumentSymbolParams,
    cancel: &Cancel,
) -> Option<DocumentSymbolResponse> {
    let snapshot = session.snapshot(&params.text_document.uri, cancel)?;
    let analysis = &snapshot.analysis;
    let symbols = torchcts_core::symbols::document_symbols(&analysis.tree, &analysis.text);
    let positions = snapshot.positions();
    Some(DocumentSymbolResponse::Nested(symbols.iter().map(|s| convert::symbol(&positions, s)).collect()))
}
