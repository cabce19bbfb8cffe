//! The one way a request's work runs (ruff's `server/api.rs` is the model): off the event
//! loop, with a [`Cancel`] that `$/cancelRequest` flips, and a panic caught and logged.
//!
//! - [`on_snapshot`]: a read-only request on one document. Its work runs on the blocking
//!   pool with the [`Snapshot`] of the document's current version (the cached analysis, or a
//!   fresh one of the current text), and only if the request is not cancelled by then.
//! - [`background`]: any other work of a request or notification that must not run on the
//!   async workers (an accounting, an analysis).
//! - [`guarded`]: a step of the diagnostics pipeline whose panic must not lose the rest of
//!   it (the analysis, the accounting, the review): `None` and a line on stderr.
//!
//! Cancellation: tower-lsp-server answers -32800 to `$/cancelRequest` and drops the
//! request's future; dropping it flips the work's `Cancel`, which stops parsing at once and
//! the core at its next checkpoint. Handlers never spawn, catch or check this themselves.

use crate::server::session::{Cancel, Session, Snapshot};
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::Uri;

/// Runs `work` on the blocking pool with the snapshot of `uri`'s current version; `null`
/// when the document is not open (or too large), the request was cancelled, or `work`
/// panicked (logged under `what`).
pub async fn on_snapshot<T: Send + 'static>(
    session: &Session,
    what: &'static str,
    uri: Uri,
    work: impl FnOnce(&Session, &Snapshot, &Cancel) -> Option<T> + Send + 'static,
) -> Result<Option<T>> {
    Ok(background(session, what, move |session, cancel| {
        let snapshot = session.snapshot(&uri, cancel)?;
        if cancel.is_cancelled() {
            return None;
        }
        work(session, &snapshot, cancel)
    })
    .await)
}

/// Runs `work` on the blocking pool, so the async workers keep reading and answering (a
/// hover on one document never waits behind the analysis of another), and a
/// `$/cancelRequest` is seen while the work runs: the request then answers -32800 at once
/// and `work` sees its [`Cancel`] set. A panic in `work` becomes `None` and a log line.
pub async fn background<T: Send + 'static>(
    session: &Session,
    what: &'static str,
    work: impl FnOnce(&Session, &Cancel) -> Option<T> + Send + 'static,
) -> Option<T> {
    let cancel = Cancel::default();
    let _cancel_on_drop = CancelOnDrop(cancel.clone());
    let session = session.clone();
    tokio::task::spawn_blocking(move || guarded(what, || work(&session, &cancel)).flatten()).await.ok().flatten()
}

/// Runs `f`; a panic becomes `None` and a line on stderr, never a dead server.
pub fn guarded<T>(what: &str, f: impl FnOnce() -> T) -> Option<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => Some(v),
        Err(_) => {
            crate::server::log::stderr(&format!("{what} panicked"));
            None
        }
    }
}

/// Flips its [`Cancel`] when the future holding it is dropped before the work is done.
struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}
