//! `textDocument/didClose`: forget the document and clear its diagnostics.

use crate::server::session::Session;
use tower_lsp_server::ls_types::DidCloseTextDocumentParams;

pub async fn did_close(session: &Session, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri;
    session.lock().documents.close(&uri);
    session.clear_diagnostics(uri).await;
}
