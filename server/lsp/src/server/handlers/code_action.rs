//! `textDocument/codeAction`: the core's quick fixes for the findings in the range
//! (`quickfix`) and "Ignore CODE on this line" for our own findings, "Fix all safe problems" (`source.fixAll.torchcts`), then "Run affected
//! tests on DEVICE" for a runnable entry under the cursor and "Run level N"
//! (`source.torchcts.run`). `context.only` is honoured: a kind is returned only when it is,
//! or is below, one of the kinds asked for. Without `only`, "fix all" is offered when a
//! safe fix is in the range (as ESLint's lightbulb does), so that the lightbulb does not
//! cost an analysis of every fix of the file.

use crate::server::analysis::Snapshot;
use crate::server::dispatch;
use crate::server::fix_all;
use crate::server::pool::OnPool;
use crate::server::protocol::{self, RUN_AFFECTED, RUN_LEVEL};
use crate::server::session::Session;
use crate::server::to_proto;
use torchcts_core::accounting_view as av;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse, Uri};

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
    cancel: &OnPool,
) -> Option<CodeActionResponse> {
    let uri = params.text_document.uri;
    let only = params.context.only.as_deref();
    let positions = snapshot.positions();
    let (start, end) = (positions.offset(params.range.start), positions.offset(params.range.end));
    let analysis = &snapshot.analysis;
    let client = session.client_support();
    let mut actions: Vec<CodeActionOrCommand> = Vec::new();
    let wants_fixes = wanted(only, &CodeActionKind::QUICKFIX);
    let asked_fix_all = only.is_some() && wanted(only, &protocol::fix_all_kind());
    let fixes = if wants_fixes || only.is_none() {
        torchcts_core::actions::quick_fixes_until(analysis, start..end, cancel).ok()?
    } else {
        Vec::new()
    };
    let offer_fix_all = asked_fix_all || (only.is_none() && fix_all::has_safe(&fixes));
    if wants_fixes {
        actions
            .extend(fixes.into_iter().filter_map(|fix| to_proto::quick_fix(&client, &positions, analysis, fix, &uri)));
        // "Ignore CODE on this line" for our own findings (a `# torchcts-lsp: ignore[...]`).
        let suppressions = torchcts_core::actions::suppression_fixes(analysis, start..end);
        actions.extend(
            suppressions.into_iter().filter_map(|fix| to_proto::quick_fix(&client, &positions, analysis, fix, &uri)),
        );
    }
    if offer_fix_all {
        if let Some((edit, count)) = fix_all::fix_all(session, &uri, analysis, cancel).ok()? {
            actions.extend(to_proto::fix_all_action(&client, &positions, &edit, count, &uri));
        }
    }
    if wanted(only, &protocol::run_action_kind()) {
        actions.extend(run_actions(session, &uri, snapshot, start));
    }
    Some(actions)
}

/// Whether `kind` is asked for: no `only`, or `kind` is one of them or below one
/// (`source` asks for `source.fixAll.torchcts`).
fn wanted(only: Option<&[CodeActionKind]>, kind: &CodeActionKind) -> bool {
    let Some(only) = only else { return true };
    let kind = kind.as_str();
    only.iter().any(|o| {
        let o = o.as_str();
        o.is_empty() || kind == o || kind.strip_prefix(o).is_some_and(|rest| rest.starts_with('.'))
    })
}

/// "Run affected tests on DEVICE" for the entry at `offset` (none when it decides no test:
/// a run of 0 tests is no action), and the whole level.
fn run_actions(session: &Session, uri: &Uri, snapshot: &Snapshot, offset: usize) -> Vec<CodeActionOrCommand> {
    let analysis = &snapshot.analysis;
    let Some(manifest) = analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) else { return Vec::new() };
    let client = session.client_support();
    let device_setting = session.settings_for(uri).device;
    let facts = session.facts_for(uri, manifest);
    let device = facts.resolve_device(device_setting.as_deref());
    let level = av::LevelSelection::from_manifest(&facts).map(|s| s.max_level()).unwrap_or(3);
    let position = snapshot.positions().position(offset);
    let mut out = Vec::new();
    let located = torchcts_core::locate::locate(&analysis.tree, &analysis.text, offset);
    let entry = located.as_ref().filter(|t| torchcts_core::runnable::is_runnable_entry(t, &facts));
    let entry_target =
        entry.map(|t| av::run_target(session.inventory(uri), manifest, Some(t), device_setting.as_deref()));
    if let Some(target) = entry_target.filter(|t| t.node_ids.as_ref().is_some_and(|ids| !ids.is_empty())) {
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
        out.push(to_proto::run_action(&client, title, RUN_AFFECTED, argument));
    }
    let argument = serde_json::json!({"uri": uri.as_str(), "level": level});
    out.push(to_proto::run_action(&client, format!("Run level {level} on {device}"), RUN_LEVEL, argument));
    out
}

#[cfg(test)]
mod tests {
    use super::wanted;
    use tower_lsp_server::ls_types::CodeActionKind;

    #[test]
    fn only_by_kind_hierarchy() {
        let k = |s: &'static str| CodeActionKind::new(s);
        let fix_all = k("source.fixAll.torchcts");
        assert!(wanted(None, &fix_all));
        for asked in ["source", "source.fixAll", "source.fixAll.torchcts"] {
            assert!(wanted(Some(&[k(asked)]), &fix_all), "{asked}");
        }
        assert!(!wanted(Some(&[k("quickfix")]), &fix_all));
        assert!(!wanted(Some(&[k("source.fix")]), &fix_all));
        assert!(!wanted(Some(&[k("source.fixAll")]), &k("source.torchcts.run")));
        assert!(wanted(Some(&[k("refactor"), k("quickfix")]), &CodeActionKind::QUICKFIX));
    }
}
