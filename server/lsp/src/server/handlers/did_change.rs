//! `textDocument/didChange`: apply the edits in order (before the first `.await`, so edits
//! apply in arrival order), then analyse and publish.

use crate::server::session::Session;
use tower_lsp_server::ls_types::DidChangeTextDocumentParams;

pub async fn did_change(session: &Session, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri;
    let applied = {
        let mut state = session.lock();
        let encoding = state.encoding;
        state.documents.change(&uri, params.text_document.version, params.content_changes, encoding)
    };
    if applied {
        crate::server::diagnostics::refresh(session, uri).await;
    }
}
