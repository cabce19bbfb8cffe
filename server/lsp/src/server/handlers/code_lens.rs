//! `textDocument/codeLens`: "▶ Run level N on DEVICE (M tests)" above `semantic_level`, the
//! `vs HEAD` lenses, and what earlier runs showed on each dtype and capability entry.

use crate::server::analysis::Snapshot;
use crate::server::dispatch;
use crate::server::pool::OnPool;
use crate::server::protocol::RUN_LEVEL;
use crate::server::session::Session;
use crate::server::to_proto;
use torchcts_core::accounting_view as av;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CodeLens, CodeLensParams, Uri};

pub async fn code_lens(session: &Session, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let uri = params.text_document.uri;
    crate::server::inventory::wait_for_counts(session, &uri).await;
    dispatch::on_snapshot(session, "codeLens", uri.clone(), move |session, snapshot, on_pool| {
        code_lens_now(session, snapshot, uri, on_pool)
    })
    .await
}

fn code_lens_now(session: &Session, snapshot: &Snapshot, uri: Uri, on_pool: &OnPool) -> Option<Vec<CodeLens>> {
    let analysis = &snapshot.analysis;
    let summary = session.lock().documents.get(&uri).and_then(|d| d.summary.clone());
    let (Some(manifest), Some(summary)) = (analysis.model.manifest.as_ref().and_then(|m| m.as_dict()), summary) else {
        return None;
    };
    let level = av::selected_level(&summary);
    let span =
        manifest.get("semantic_level").map(|e| e.key.span.clone()).or(analysis.model.name_span.clone()).unwrap_or(0..0);
    let run = av::runnable_up_to(&summary, level);
    let positions = snapshot.positions();
    let run_title = format!("▶ Run level {level} on {} ({run} tests)", summary.device);
    let run_argument = serde_json::json!({"uri": uri.as_str(), "level": level});
    let mut lenses = vec![to_proto::code_lens(&positions, &span, run_title, Some((RUN_LEVEL, run_argument)))];
    // "vs HEAD" on each changed entry, and what earlier runs showed on each dtype and
    // capability entry: lines to read, no command.
    let review = crate::server::review_lens::lens_lines(session, &uri, analysis, session.inventory(&uri));
    let evidence = crate::server::evidence::entry_lines(session, &uri, analysis, on_pool);
    let lines = review.into_iter().chain(evidence);
    lenses.extend(lines.map(|(span, title)| to_proto::code_lens(&positions, &span, title, None)));
    Some(lenses)
}
