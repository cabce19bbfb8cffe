//! Cooperative cancellation of long core work (rust-analyzer's `Cancelled`, without salsa).
//!
//! A caller hands the core a [`Cancel`]; the core checks it at coarse but frequent points
//! (per statement, per batch of dict entries, per finding, per accounting question) and
//! gives up with [`Cancelled`] once it is set. Checking is one relaxed atomic load, so the
//! points can be frequent; work that stopped half-way is thrown away, never returned.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set by whoever no longer wants the result (a cancelled request, a newer edit); cheap to
/// clone, and every clone sees the same flag. The default is never set by itself.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

/// The work was cancelled before it finished; its partial result is gone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cancelled;

/// A result that a cancellation may take away.
pub type Cancellable<T> = Result<T, Cancelled>;

/// Loops over many small items check their [`Cancel`] once per this many items.
pub const CHECK_EVERY: usize = 256;

impl Cancel {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once cancelled: `cancel.check()?` at a checkpoint.
    pub fn check(&self) -> Cancellable<()> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }
}

/// What `work` gives with a [`Cancel`] that nobody else holds, so is never set: the
/// uncancellable form of a cancellable core function.
pub fn uncancelled<T>(work: impl FnOnce(&Cancel) -> Cancellable<T>) -> T {
    match work(&Cancel::default()) {
        Ok(value) => value,
        Err(Cancelled) => unreachable!("a Cancel that nobody else holds is never set"),
    }
}

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cancelled")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_clone_sees_the_cancellation() {
        let cancel = Cancel::default();
        let clone = cancel.clone();
        assert_eq!(clone.check(), Ok(()));
        cancel.cancel();
        assert!(clone.is_cancelled());
        assert_eq!(clone.check(), Err(Cancelled));
    }
}
