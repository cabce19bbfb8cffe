//! `textDocument/inlayHint`: per entry, how many tests it lets in, gates or removes;
//! cached per document for the facts they were computed from.

use crate::server::analysis::Snapshot;
use crate::server::dispatch;
use crate::server::session::{Cancel, Session};
use crate::server::to_proto;
use torchcts_core::accounting_view as av;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{InlayHint, InlayHintParams, Uri};

pub async fn inlay_hint(session: &Session, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
    if !session.settings().inlay_hints {
        return Ok(None);
    }
    let uri = params.text_document.uri;
    crate::server::inventory::wait_for_counts(session, &uri).await;
    dispatch::on_snapshot(session, "inlayHint", uri.clone(), move |session, snapshot, cancel| {
        inlay_hint_now(session, snapshot, uri, cancel)
    })
    .await
}

fn inlay_hint_now(session: &Session, snapshot: &Snapshot, uri: Uri, cancel: &Cancel) -> Option<Vec<InlayHint>> {
    let analysis = &snapshot.analysis;
    let summary = session.lock().documents.get(&uri).and_then(|d| d.summary.clone());
    let (Some(manifest), Some(summary)) = (analysis.model.manifest.as_ref().and_then(|m| m.as_dict()), summary) else {
        return None;
    };
    let cached =
        session.lock().documents.get(&uri).and_then(|d| d.inlay_cache.clone()).filter(|c| c.0 == summary.facts);
    let hints = match cached {
        Some(c) => c.1,
        None => {
            let computed = av::entry_counts_until(session.inventory(&uri), manifest, &summary, cancel).ok()?;
            if let Some(doc) = session.lock().documents.get_mut(&uri) {
                doc.inlay_cache = Some((summary.facts.clone(), computed.clone()));
            }
            computed
        }
    };
    let positions = snapshot.positions();
    Some(hints.into_iter().map(|(offset, label)| to_proto::inlay_hint(&positions, offset, label)).collect())
}
