//! `textDocument/documentSymbol`: the manifest, its sections and entries as an outline.

use crate::server::convert;
use crate::server::session::Session;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{DocumentSymbolParams, DocumentSymbolResponse};

pub async fn document_symbol(session: &Session, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
    let Some(snapshot) = session.snapshot(&params.text_document.uri) else { return Ok(None) };
    let analysis = &snapshot.analysis;
    let symbols = torchcts_core::symbols::document_symbols(&analysis.tree, &analysis.text);
    let positions = snapshot.positions();
    Ok(Some(DocumentSymbolResponse::Nested(symbols.iter().map(|s| convert::symbol(&positions, s)).collect())))
}
