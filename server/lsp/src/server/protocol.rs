//! The server's extensions to LSP, in one place: the command ids of
//! `workspace/executeCommand` and their argument object, the `torchcts/status`
//! notification, the code action kinds (runs, fix-all) and the progress token of a run.
//! The editor integrations (`editors/`) speak exactly these names.

use serde::Deserialize;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::{CodeActionKind, NumberOrString, Position};

/// Run the tests an entry decides (a code action on the entry).
pub const RUN_AFFECTED: &str = "torchcts.runAffectedTests";
/// Run a whole level (code lens and code action).
pub const RUN_LEVEL: &str = "torchcts.runLevel";
/// Cancel the run of a manifest.
pub const CANCEL_RUN: &str = "torchcts.cancelRun";
/// What `torchcts show-skips` prints, as Markdown.
pub const SHOW_SKIPS: &str = "torchcts.showSkips";
/// Run again the tests the last run failed.
pub const RERUN_FAILED: &str = "torchcts.rerunFailed";
/// Every command the server declares in `initialize`.
pub const COMMANDS: &[&str] = &[RUN_AFFECTED, RUN_LEVEL, CANCEL_RUN, SHOW_SKIPS, RERUN_FAILED];

/// The kind of the code actions that start a run.
pub fn run_action_kind() -> CodeActionKind {
    CodeActionKind::new("source.torchcts.run")
}

/// The kind of the action that applies every safe quick fix of a manifest at once
/// (`editor.codeActionsOnSave: {"source.fixAll.torchcts": "explicit"}` in VS Code).
pub fn fix_all_kind() -> CodeActionKind {
    CodeActionKind::new("source.fixAll.torchcts")
}

/// Every kind `textDocument/codeAction` returns, as `initialize` advertises them.
pub fn code_action_kinds() -> Vec<CodeActionKind> {
    vec![CodeActionKind::QUICKFIX, run_action_kind(), fix_all_kind()]
}

/// The work-done progress token of run `id`.
pub fn run_progress_token(id: u64) -> NumberOrString {
    NumberOrString::String(format!("torchcts-run-{id}"))
}

/// Arguments of the commands (one JSON object, as the editor integrations send).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct CommandArgs {
    pub uri: Option<String>,
    pub position: Option<Position>,
    pub level: Option<u8>,
    pub device: Option<String>,
    pub python: Option<String>,
    /// pytest-xdist workers for this run (`-n N`), instead of the `workers` setting.
    pub workers: Option<u16>,
    /// Each test in its own process (`--subprocess-per-test`): the re-run a crash offers.
    pub isolate: Option<bool>,
}

/// `torchcts/status`: the manifest's run/filtered counts at its level, for status bars.
/// Parameters: `{uri, level, device, run, filtered, countsFor}`.
pub enum StatusNotification {}

impl Notification for StatusNotification {
    type Params = serde_json::Value;
    const METHOD: &'static str = "torchcts/status";
}

/// The parameters of [`StatusNotification`].
pub fn status_params(
    uri: &str,
    level: usize,
    device: &str,
    run: usize,
    filtered: usize,
    counts_for: String,
) -> serde_json::Value {
    serde_json::json!({
        "uri": uri,
        "level": level,
        "device": device,
        "run": run,
        "filtered": filtered,
        "countsFor": counts_for,
    })
}
