//! `textDocument/codeAction`: the core's quick fixes for the findings in the range, then
//! "Run affected tests on DEVICE" for a runnable entry under the cursor and "Run level N".

use crate::server::convert;
use crate::server::dispatch;
use crate::server::protocol::{RUN_AFFECTED, RUN_LEVEL};
use crate::server::session::{Cancel, Session, Snapshot};
use torchcts_core::accounting_view as av;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CodeActionOrCommand, CodeActionParams, CodeActionResponse, Uri};

pub async fn code_action(session: &Session, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    let uri = params.text_document.uri.clone();
    dispatch::on_snapshot(session, "codeAction", uri, move |session, snapshot, cancel| {
        code_action_now(session, snapshot, params, cancel)
    })
    .await
}

fn code_action_now(
    session: &Session,
    snapshot: &Snapshot,
    params: CodeActionParams,
    cancel: &Cancel,
) -> Option<CodeActionResponse> {
    let uri = params.text_document.uri;
    let positions = snapshot.positions();
    let (start, end) = (positions.offset(params.range.start), positions.offset(params.range.end));
    let fixes = torchcts_core::actions::quick_fixes_until(&snapshot.analysis, start..end, cancel).ok()?;
    let mut actions: Vec<CodeActionOrCommand> =
        fixes.into_iter().map(|fix| convert::quick_fix(&positions, &snapshot.analysis, fix, &uri)).collect();
    actions.extend(run_actions(session, &uri, snapshot, start));
    Some(actions)
}

/// "Run affected tests on DEVICE" for the entry at `offset`, and the whole level.
fn run_actions(session: &Session, uri: &Uri, snapshot: &Snapshot, offset: usize) -> Vec<CodeActionOrCommand> {
    let analysis = &snapshot.analysis;
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else { return Vec::new() };
    let device_setting = session.settings().device;
    let facts = av::facts(manifest);
    let device = facts.resolve_device(device_setting.as_deref());
    let level = av::LevelSelection::from_manifest(&facts).map(|s| s.max_level()).unwrap_or(3);
    let position = snapshot.positions().position(offset);
    let mut out = Vec::new();
    let located = torchcts_core::locate::locate(&analysis.tree, &analysis.text, offset);
    let entry = located.as_ref().filter(|t| torchcts_core::runnable::is_runnable_entry(t, &facts));
    if let Some(t) = entry {
        let target = av::run_target(session.inventory(), manifest, Some(t), device_setting.as_deref());
        let n = target.node_ids.as_ref().map(Vec::len).unwrap_or(0);
        let title = if target.scratch_change.is_some() {
            format!(
                "Run affected tests on {device} ({n} tests of {}, on a scratch copy without the entry)",
                target.label
            )
        } else {
            format!("Run affected tests on {device} ({n} tests of {})", target.label)
        };
        let argument = serde_json::json!({"uri": uri.as_str(), "position": position});
        out.push(convert::run_action(title, RUN_AFFECTED, argument));
    }
    let argument = serde_json::json!({"uri": uri.as_str(), "level": level});
    out.push(convert::run_action(format!("Run level {level} on {device}"), RUN_LEVEL, argument));
    out
}
