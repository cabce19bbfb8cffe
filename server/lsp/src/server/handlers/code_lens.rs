//! `textDocument/codeLens`: "▶ Run level N on DEVICE (M tests)" above `semantic_level`, the
//! `vs HEAD` lenses, and what earlier runs showed on each dtype and capability entry.

use crate::server::dispatch;
use crate::server::protocol::RUN_LEVEL;
use crate::server::session::{Session, Snapshot};
use torchcts_core::accounting_view as av;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CodeLens, CodeLensParams, Command, Uri};

pub async fn code_lens(session: &Session, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
    let uri = params.text_document.uri;
    dispatch::on_snapshot(session, "codeLens", uri.clone(), move |session, snapshot, _| {
        code_lens_now(session, snapshot, uri)
    })
    .await
}

fn code_lens_now(session: &Session, snapshot: &Snapshot, uri: Uri) -> Option<Vec<CodeLens>> {
    let analysis = &snapshot.analysis;
    let summary = session.lock().documents.get(&uri).and_then(|d| d.summary.clone());
    let (Some(manifest), Some(summary)) = (analysis.model.manifest.as_ref().and_then(|m| m.as_dict()), summary) else {
        return None;
    };
    let level = av::selected_level(&summary);
    let span =
        manifest.get("semantic_level").map(|e| e.key.span.clone()).or(analysis.model.name_span.clone()).unwrap_or(0..0);
    let run = av::runnable_up_to(&summary, level);
    let mut lenses =
        crate::server::review_lens::code_lenses(session, &uri, analysis, &snapshot.positions(), session.inventory());
    // What earlier runs showed on each dtype and capability entry (a label, no command).
    for (span, line) in crate::server::evidence::entry_lines(session, &uri, analysis) {
        let command = Command { title: line, command: String::new(), arguments: None };
        lenses.push(CodeLens { range: snapshot.positions().range(&span), command: Some(command), data: None });
    }
    lenses.insert(
        0,
        CodeLens {
            range: snapshot.positions().range(&span),
            command: Some(Command {
                title: format!("▶ Run level {level} on {} ({run} tests)", summary.device),
                command: RUN_LEVEL.into(),
                arguments: Some(vec![serde_json::json!({"uri": uri.as_str(), "level": level})]),
            }),
            data: None,
        },
    );
    Some(lenses)
}
