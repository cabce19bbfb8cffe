//! Where blocking work runs: the blocking pool, never the async workers that read requests
//! and answer them. Work that reads files, runs git or analyses takes an [`OnPool`], which
//! only this module makes, so such work cannot be written on the request loop: a function
//! that needs one can only be reached through [`run`] (which `dispatch` wraps for requests
//! and notifications) or [`inline`] (the one measured exception).
//!
//! A panic in the work becomes `None` and a line on stderr, never a dead server.

use std::ops::Deref;
use torchcts_core::Cancel;

/// Proof that the code holding it runs where it may block, with the cancellation of the
/// work (it dereferences to the [`Cancel`] the core checks).
pub struct OnPool {
    cancel: Cancel,
}

impl Deref for OnPool {
    type Target = Cancel;
    fn deref(&self) -> &Cancel {
        &self.cancel
    }
}

/// Runs `work` on the blocking pool; `None` if it panicked (logged under `what`).
pub async fn run<T: Send + 'static>(
    what: &'static str,
    cancel: Cancel,
    work: impl FnOnce(&OnPool) -> Option<T> + Send + 'static,
) -> Option<T> {
    tokio::task::spawn_blocking(move || guarded(what, || work(&OnPool { cancel })).flatten()).await.ok().flatten()
}

/// Runs `work` where it is, on an async worker: only for the analysis of a small document
/// as it is typed (`diagnostics::INLINE_ANALYSIS_BYTES`: a hop to the pool and back costs
/// more than such an analysis holds the worker, measured over stdio). Nothing else.
pub fn inline<T>(what: &str, cancel: Cancel, work: impl FnOnce(&OnPool) -> T) -> Option<T> {
    guarded(what, || work(&OnPool { cancel }))
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
