//! `textDocument/hover`: what a key, value or dtype means, with counts from the inventory.

use crate::server::analysis::Snapshot;
use crate::server::dispatch;
use crate::server::pool::OnPool;
use crate::server::session::Session;
use crate::server::to_proto;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{Hover, HoverParams, Uri};

pub async fn hover(session: &Session, params: HoverParams) -> Result<Option<Hover>> {
    let uri = params.text_document_position_params.text_document.uri.clone();
    dispatch::on_snapshot(session, "hover", uri, move |session, snapshot, on_pool| {
        hover_now(session, snapshot, params, on_pool)
    })
    .await
}

fn hover_now(session: &Session, snapshot: &Snapshot, params: HoverParams, on_pool: &OnPool) -> Option<Hover> {
    let uri = params.text_document_position_params.text_document.uri;
    let positions = snapshot.positions();
    let offset = positions.offset(params.text_document_position_params.position);
    let summary = session.lock().documents.get(&uri).and_then(|d| d.summary.clone());
    let counts =
        summary.as_deref().map(|summary| torchcts_core::hover::Counts { inventory: session.inventory(&uri), summary });
    let result = torchcts_core::hover::hover(&snapshot.analysis, offset, counts.as_ref()).map(|mut h| {
        // Where the inventory added counts, say which versions they are for.
        if h.counted {
            if let Some(summary) = summary.as_deref().filter(|_| h.markdown.contains("known backend crash")) {
                h.markdown.push_str(&expired_ledger_entries(session, &uri, &summary.device, &summary.facts));
            }
            h.markdown.push_str(&format!("\n\n*Counts for {}.*", session.counts_for(&uri)));
        }
        h
    });
    let result =
        match (result, crate::server::evidence::hover_markdown(session, &uri, &snapshot.analysis, offset, on_pool)) {
            (Some(mut h), Some(e)) => {
                h.markdown = format!("{}\n\n---\n\n{e}", h.markdown);
                Some(h)
            }
            (h, _) => h,
        };
    let review =
        crate::server::review_lens::hover_markdown(session, &uri, &snapshot.analysis, offset, session.inventory(&uri));
    let result = match (result, review) {
        (Some(mut h), Some(r)) => {
            h.markdown = format!("{}\n\n---\n\n{r}", h.markdown);
            Some(h)
        }
        (None, Some(r)) => {
            Some(torchcts_core::hover::HoverResult { markdown: r, span: offset..offset, counted: false })
        }
        (h, None) => h,
    };
    result.map(|h| to_proto::hover(&session.client_support(), &positions, h))
}

/// Where the hover lists the known crashes: the ledger entries past their review date, as
/// `show-skips` and `run` warn about them (today's date read in the IO layer).
fn expired_ledger_entries(session: &Session, uri: &Uri, device: &str, facts: &accounting::ManifestFacts) -> String {
    let (torchcts, torch) = session.counted_versions(uri);
    let expired = crate::host::ledger_warnings::expired(&torchcts, &torch, device, facts);
    if expired.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n**{} known-segfault ledger entries have expired** (show-skips and run warn about each):\n\n",
        expired.len()
    );
    for line in expired.iter().take(20) {
        out.push_str(&format!("- {line}\n"));
    }
    out
}
