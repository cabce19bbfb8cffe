//! The one way a request's or notification's work runs (ruff's `server/api.rs` is the
//! model): off the event loop, on the blocking pool (`pool.rs`), with a cancellation that
//! `$/cancelRequest` flips, and a panic caught and logged.
//!
//! - [`on_snapshot`]: a read-only request on one document. Its work runs with the
//!   [`Snapshot`] of the document's current version (the cached analysis, or a fresh one of
//!   the current text), and only if the request is not cancelled by then.
//! - [`background`]: any other work that must not run on the async workers (an accounting,
//!   an analysis, reading result folders, git).
//!
//! The work gets an [`OnPool`]: the functions that block (analysis, evidence IO) ask for
//! one, and only `pool.rs` makes it, so they cannot be called from an async handler.
//!
//! Cancellation: tower-lsp-server answers -32800 to `$/cancelRequest` and drops the
//! request's future; dropping it flips the work's `Cancel`, which stops parsing at once and
//! the core at its next checkpoint. Handlers never spawn, catch or check this themselves.

use crate::server::analysis::{self, Snapshot};
use crate::server::pool::{self, OnPool};
use crate::server::session::{Cancel, Session};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::Uri;

/// Runs `work` on the blocking pool with the snapshot of `uri`'s current version; `null`
/// when the document is not open (or too large), the request was cancelled, or `work`
/// panicked (logged under `what`).
pub async fn on_snapshot<T: Send + 'static>(
    session: &Session,
    what: &'static str,
    uri: Uri,
    work: impl FnOnce(&Session, &Snapshot, &OnPool) -> Option<T> + Send + 'static,
) -> Result<Option<T>> {
    Ok(background(session, what, move |session, on_pool| {
        let snapshot = analysis::snapshot(session, &uri, on_pool)?;
        if on_pool.is_cancelled() {
            return None;
        }
        work(session, &snapshot, on_pool)
    })
    .await)
}

/// Runs `work` on the blocking pool, so the async workers keep reading and answering (a
/// hover on one document never waits behind the analysis of another), and a
/// `$/cancelRequest` is seen while the work runs: the request then answers -32800 at once
/// and `work` sees its cancellation set. A panic in `work` becomes `None` and a log line.
pub async fn background<T: Send + 'static>(
    session: &Session,
    what: &'static str,
    work: impl FnOnce(&Session, &OnPool) -> Option<T> + Send + 'static,
) -> Option<T> {
    let cancel = Cancel::default();
    let _cancel_on_drop = CancelOnDrop(cancel.clone());
    let session = session.clone();
    pool::run(what, cancel, move |on_pool| work(&session, on_pool)).await
}

/// Flips its [`Cancel`] when the future holding it is dropped before the work is done.
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}
