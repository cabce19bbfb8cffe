//! Per-document state of "vs HEAD" (`server/review_lens.rs`): the committed version of the
//! document, what `.git/HEAD` looked like when it was read, and the caches built on it.
//! Kept on the [`Document`](super::documents::Document) behind its own lock, which a review
//! holds while it counts (never the session's lock).

use accounting::diff::Prepared;
use runner::git::HeadKey;
use std::sync::{Arc, Mutex, MutexGuard};
use torchcts_core::accounting_view::{Accounting, LevelSelection, ManifestFacts};
use torchcts_core::review_diff::Review;

/// The committed accounting with what diffs need of it, shared with running reviews.
pub type PreparedAccounting = Arc<(Accounting<'static>, Prepared)>;

/// The committed version of one document and the caches built on it.
#[derive(Default)]
pub struct Committed {
    pub head: Option<HeadKey>,
    /// `None`: not in a repository, not committed, or no manifest dict at HEAD.
    pub facts: Option<ManifestFacts>,
    /// The committed accounting for (inventory, device, selection), prepared for diffs.
    pub accounting: Option<(usize, String, LevelSelection, PreparedAccounting)>,
    /// The review of the last current facts (with the inventory it was counted with).
    pub review: Option<(usize, ManifestFacts, Arc<Review>)>,
}

/// A document's [`Committed`] state; `None` until the committed version was first read.
#[derive(Clone, Default)]
pub struct CommittedSlot(Arc<Mutex<Option<Committed>>>);

impl CommittedSlot {
    /// A poisoned lock is taken over (a panic in a review must not take the server down).
    pub fn lock(&self) -> MutexGuard<'_, Option<Committed>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
