//! `workspace/executeCommand`: the run commands (`torchcts.runAffectedTests`,
//! `torchcts.runLevel`, `torchcts.rerunFailed`), `torchcts.cancelRun` and
//! `torchcts.showSkips`, and `torchcts.applyEdit` (a fix run as a command by a client
//! without code action literals: the edit goes back as `workspace/applyEdit`). An unknown command is an error (InvalidParams), not `null`.

use crate::server::dispatch;
use crate::server::pool::OnPool;
use crate::server::protocol::{CommandArgs, APPLY_EDIT, CANCEL_RUN, RERUN_FAILED, RUN_AFFECTED, RUN_LEVEL, SHOW_SKIPS};
use crate::server::runs::WhenRunning;
use crate::server::session::Session;
use torchcts_core::accounting_view::{self as av, RunTarget};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{ExecuteCommandParams, Uri};

pub async fn execute_command(session: &Session, params: ExecuteCommandParams) -> Result<Option<serde_json::Value>> {
    let args: CommandArgs =
        params.arguments.first().and_then(|a| serde_json::from_value(a.clone()).ok()).unwrap_or_default();
    let uri: Option<Uri> = args.uri.as_deref().and_then(|u| u.parse().ok());
    Ok(match params.command.as_str() {
        APPLY_EDIT => {
            let edit = params
                .arguments
                .into_iter()
                .next()
                .and_then(|a| crate::server::to_proto::apply_edit_params("torchcts fix", a));
            let Some(edit) = edit else {
                return Err(Error::invalid_params("torchcts.applyEdit takes a WorkspaceEdit"));
            };
            // Not awaited here: the client answers applyEdit after this command's reply
            // (some clients apply nothing until it).
            let client = session.client.clone();
            tokio::spawn(async move {
                client.send_request::<tower_lsp_server::ls_types::request::ApplyWorkspaceEdit>(edit).await
            });
            None
        }
        CANCEL_RUN => {
            let path = uri.as_ref().and_then(|u| u.to_file_path()).map(|p| p.into_owned());
            let cancelled = path.and_then(|p| session.runs.cancel(&p)).is_some();
            Some(serde_json::json!({"cancelled": cancelled}))
        }
        SHOW_SKIPS => match uri {
            Some(uri) => {
                dispatch::background(session, "showSkips", move |session, cancel| {
                    show_skips(session, &uri, &args, cancel)
                })
                .await
            }
            None => None,
        },
        RUN_AFFECTED | RUN_LEVEL | RERUN_FAILED => match uri {
            Some(uri) => {
                let (command, work_uri, work_args) = (params.command.clone(), uri.clone(), args.clone());
                let target = dispatch::background(session, "run target", move |session, cancel| {
                    target_for(session, &command, &work_uri, &work_args, cancel)
                })
                .await;
                match target {
                    Some(target) => {
                        let started = crate::server::runs::start(session, uri, target, args, WhenRunning::Ask).await;
                        Some(serde_json::json!({"started": started}))
                    }
                    None => None,
                }
            }
            None => None,
        },
        unknown => return Err(Error::invalid_params(format!("unknown command `{unknown}`"))),
    })
}

/// What `torchcts show-skips` would print for the manifest, as Markdown.
fn show_skips(session: &Session, uri: &Uri, args: &CommandArgs, on_pool: &OnPool) -> Option<serde_json::Value> {
    let snapshot = crate::server::analysis::snapshot(session, uri, on_pool)?;
    let manifest = snapshot.analysis.model.manifest.as_ref()?.as_dict()?;
    let facts = session.facts_for(uri, manifest);
    let selection = match args.level {
        Some(n) => av::LevelSelection::Cumulative(n.clamp(1, 8)),
        None => av::LevelSelection::from_manifest(&facts).unwrap_or(av::LevelSelection::Cumulative(3)),
    };
    let device = facts.resolve_device(args.device.as_deref().or(session.settings_for(uri).device.as_deref()));
    let acc = accounting::account(session.inventory(uri), &facts, &device, selection);
    // A regex-valued entry is printed in every record it filters: the text can be far
    // larger than the accounting, so the editor gets at most SHOW_SKIPS_MAX_BYTES of it.
    let mut text = Capped { text: String::new(), cap: SHOW_SKIPS_MAX_BYTES };
    if accounting::write_show_skips(&acc, &mut text).is_err() {
        text.text.push_str(&format!(
            "\n... cut at {} MiB: `torchcts-lsp skips FILE` prints all of it.\n",
            SHOW_SKIPS_MAX_BYTES >> 20
        ));
    }
    let text = text.text;
    Some(serde_json::Value::String(format!("# show-skips on `{device}` ({})\n\n```\n{text}```\n", selection.label())))
}

const SHOW_SKIPS_MAX_BYTES: usize = 8 << 20;

/// A string that refuses to grow past `cap` bytes.
struct Capped {
    text: String,
    cap: usize,
}

impl std::fmt::Write for Capped {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if self.text.len() + s.len() > self.cap {
            return Err(std::fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

/// The tests a run command is about.
fn target_for(session: &Session, command: &str, uri: &Uri, args: &CommandArgs, on_pool: &OnPool) -> Option<RunTarget> {
    let snapshot = crate::server::analysis::snapshot(session, uri, on_pool)?;
    let analysis = &snapshot.analysis;
    let manifest = analysis.model.manifest.as_ref()?.as_dict()?;
    let device = args.device.clone().or(session.settings_for(uri).device);
    let facts = session.facts_for(uri, manifest);
    match command {
        RUN_LEVEL => {
            let level = args
                .level
                .unwrap_or_else(|| av::LevelSelection::from_manifest(&facts).map(|s| s.max_level()).unwrap_or(3));
            Some(RunTarget {
                label: format!("level {level}"),
                node_ids: None,
                level: level.clamp(1, 8),
                device: facts.resolve_device(device.as_deref()),
                anchor: vec!["semantic_level".into()],
                scratch_change: None,
            })
        }
        RERUN_FAILED => {
            let previous = session.lock().documents.get(uri).and_then(|d| d.run_results.clone())?;
            if previous.failed.is_empty() {
                return None;
            }
            Some(RunTarget {
                label: format!("{} failed tests", previous.failed.len()),
                node_ids: Some(previous.failed.clone()),
                level: av::LevelSelection::from_manifest(&facts).map(|s| s.max_level()).unwrap_or(3),
                device: facts.resolve_device(device.as_deref()),
                anchor: previous.anchor.clone(),
                scratch_change: None,
            })
        }
        _ => {
            let offset = args.position.map(|p| snapshot.positions().offset(p)).unwrap_or(0);
            let located = torchcts_core::locate::locate(&analysis.tree, &analysis.text, offset);
            Some(av::run_target(session.inventory(uri), manifest, located.as_ref(), device.as_deref()))
        }
    }
}
