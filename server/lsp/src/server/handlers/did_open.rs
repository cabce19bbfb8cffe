//! `textDocument/didOpen`: store the text, analyse, publish. While the inventory loads (the
//! first second after start), the analysis waits for it briefly, so that the first
//! diagnostics hold the inventory's findings too (edits meanwhile apply as they arrive).

use crate::server::session::{Change, Session};
use tower_lsp_server::ls_types::DidOpenTextDocumentParams;

pub async fn did_open(session: &Session, params: DidOpenTextDocumentParams) {
    let doc = params.text_document;
    session.lock().documents.open(doc.uri.clone(), &doc.text, doc.version);
    crate::server::review_lens::note_head(session, &doc.uri).await;
    crate::server::inventory::wait_until_loaded(session).await;
    crate::server::diagnostics::refresh(session, doc.uri.clone()).await;
    session.changed(Change::Evidence(vec![doc.uri]));
}
