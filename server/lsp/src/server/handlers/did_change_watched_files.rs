//! `workspace/didChangeWatchedFiles`: a `known_segfaults.json` changed (the project ledgers
//! are read again), or a `pyproject.toml` changed, appeared or went, so the
//! project configuration (`[tool.torchcts-lsp]`) is read again and every open document is
//! analysed again (what is a manifest and what is silenced may have changed); a run's result
//! file (`results/**/*.json`, `.torchcts-lsp/results/**/*.json`) changed, so the evidence of
//! every open document is computed again (its index re-reads only the files that changed)
//! and the client asked to fetch the code lenses again.

use crate::server::session::{Change, Session};
use tower_lsp_server::ls_types::DidChangeWatchedFilesParams;

pub async fn did_change_watched_files(session: &Session, params: DidChangeWatchedFilesParams) {
    let ledger = params.changes.iter().any(|c| c.uri.as_str().ends_with(accounting::ledger::PROJECT_LEDGER_FILE));
    if ledger {
        // A project known-segfault ledger: read again, counted and checked again.
        session.lock().ledgers.forget();
    }
    let pyproject = params.changes.iter().any(|c| c.uri.as_str().ends_with(crate::host::project_config::FILE_NAME));
    let results = params.changes.iter().any(|c| is_result_file(c.uri.as_str()));
    if ledger && !pyproject {
        // What is counted changed: findings, lenses and hints again.
        session.changed(Change::Counts(session.lock().documents.uris()));
    }
    if pyproject {
        {
            let mut state = session.lock();
            state.project_configs.forget();
            // Its `python` may have changed with it, and with it the modules it imports.
            state.project_environments.clear();
        }
        session.cpython.forget_found_modules();
        // The `results` folders may have changed with it.
        session.evidence.clear();
        session.changed(Change::Counts(session.lock().documents.uris()));
    }
    if pyproject || results {
        let uris = session.lock().documents.uris();
        session.changed(Change::Results(uris));
    }
}

/// A JSON file under a `results` folder (a run's artifact or history file).
fn is_result_file(uri: &str) -> bool {
    uri.ends_with(".json") && uri.split('/').any(|segment| segment == "results")
}
