//! "vs HEAD" in the editor: when a manifest is in a git repository, each entry whose change
//! since the committed version makes tests start or stop running gets a code lens ("vs HEAD:
//! -412 tests"), a hover listing the groups, and a dtype or capability switched off gets an
//! information diagnostic naming what it removes (`torchcts_core::review_diff`).
//!
//! Cost: the committed text is read with `git show` only on didOpen and on didSave when
//! `.git/HEAD` (or the branch it points to) changed since the last read, never per keystroke;
//! its accounting is kept, and the review of the current text is recomputed only when the
//! current facts change. The state is the document's (`session/review.rs`).

use crate::server::session::review::{Committed, CommittedSlot};
use crate::server::session::Session;
use crate::server::{dispatch, pool};
use std::path::Path;
use std::sync::Arc;
use torchcts_core::accounting_view::{self as av, Inventory, LevelSelection, ManifestFacts};
use torchcts_core::review_diff::{self, Review};
use torchcts_core::value::Dict;
use torchcts_core::{Analysis, Finding};
use tower_lsp_server::ls_types::Uri;

/// What the review is computed against, as the diagnostics and lenses say it.
const AGAINST: &str = "HEAD";

/// didOpen and didSave: (re-)reads the committed version when HEAD moved since the last read
/// (or on the first call for this document). Runs git off the async threads.
pub async fn note_head(session: &Session, uri: &Uri) {
    session.read_project_files(uri).await;
    if !session.is_manifest(uri) {
        return;
    }
    let Some(path) = uri.to_file_path().map(|p| p.to_path_buf()) else { return };
    let Some(slot) = session.committed(uri) else { return };
    dispatch::background(session, "reading HEAD", move |_, _| {
        refresh_committed(&slot, &path);
        Some(())
    })
    .await;
}

fn refresh_committed(slot: &CommittedSlot, path: &Path) {
    let head = runner::git::git_dir(path).map(|g| runner::git::head_key(&g));
    let known = slot.lock().as_ref().map(|c| c.head.clone());
    if known.is_some() && known.flatten() == head {
        return;
    }
    let facts = head
        .as_ref()
        .and_then(|_| runner::git::committed_text(path, AGAINST).ok())
        .and_then(|text| review_diff::side(&text).ok())
        .map(|side| side.facts);
    *slot.lock() = Some(Committed { head, facts, ..Committed::default() });
}

fn inventory_key(inventory: &'static Inventory) -> usize {
    inventory as *const Inventory as usize
}

/// The review of `manifest` against the committed version (cached per current facts), and
/// the committed facts.
fn review(
    session: &Session,
    uri: &Uri,
    manifest: &Dict,
    inventory: &'static Inventory,
) -> Option<(Arc<Review>, ManifestFacts)> {
    let facts = av::facts(manifest);
    let inv = inventory_key(inventory);
    let slot = session.committed(uri)?;
    let mut guard = slot.lock();
    let committed = guard.as_mut()?;
    let old = committed.facts.clone()?;
    if let Some((i, f, r)) = &committed.review {
        if *i == inv && *f == facts {
            return Some((r.clone(), old));
        }
    }
    if old == facts {
        committed.review = None;
        return None;
    }
    let device = facts.resolve_device(None);
    let old_selection = LevelSelection::from_manifest(&old).ok()?;
    let new_selection = LevelSelection::from_manifest(&facts).ok()?;
    let cached = committed
        .accounting
        .as_ref()
        .filter(|(i, d, s, _)| *i == inv && *d == device && *s == old_selection)
        .map(|c| c.3.clone());
    let old_side = match cached {
        Some(side) => side,
        None => {
            let side = pool::guarded("review accounting", || {
                let acc = accounting::account(inventory, &old, &device, old_selection);
                let prepared = accounting::diff::prepare(&acc);
                Arc::new((acc, prepared))
            })?;
            committed.accounting = Some((inv, device.clone(), old_selection, side.clone()));
            side
        }
    };
    let result = pool::guarded("review", || {
        let new_acc = accounting::account(inventory, &facts, &device, new_selection);
        review_diff::review_prepared(&old_side.0, &old_side.1, &old, &new_acc, &facts)
    })?;
    let result = Arc::new(result);
    committed.review = Some((inv, facts, result.clone()));
    Some((result, old))
}

fn manifest_of(analysis: &Analysis) -> Option<&Dict> {
    analysis.model.manifest.as_ref().and_then(|m| m.as_dict())
}

/// Information diagnostics: a dtype or capability switched off since HEAD that stops tests.
pub fn findings(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    inventory: Option<&'static Inventory>,
) -> Vec<Finding> {
    let (Some(manifest), Some(inventory)) = (manifest_of(analysis), inventory) else { return Vec::new() };
    match review(session, uri, manifest, inventory) {
        Some((review, old)) => review_diff::switched_off_findings(&review, &old, manifest, AGAINST),
        None => Vec::new(),
    }
}

/// A lens on each entry whose change since HEAD makes tests start or stop running: where
/// (an empty span at the entry's start) and its title.
pub fn lens_lines(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    inventory: &'static Inventory,
) -> Vec<(std::ops::Range<usize>, String)> {
    let Some(manifest) = manifest_of(analysis) else { return Vec::new() };
    let Some((review, _)) = review(session, uri, manifest, inventory) else { return Vec::new() };
    review_diff::entry_effects(&review, manifest)
        .into_iter()
        .map(|effect| {
            let labels: Vec<&str> = effect.causes.iter().map(|c| c.label.as_str()).collect();
            let what = if effect.exact { String::new() } else { format!(" ({})", labels.join(", ")) };
            let title = format!("vs {AGAINST}: {}{what}", review_diff::signed_counts(effect.started, effect.stopped));
            (effect.span.start..effect.span.start, title)
        })
        .collect()
}

/// Hover on a changed entry: the groups of tests it makes start or stop running.
pub fn hover_markdown(
    session: &Session,
    uri: &Uri,
    analysis: &Analysis,
    offset: usize,
    inventory: &'static Inventory,
) -> Option<String> {
    let manifest = manifest_of(analysis)?;
    let (review, _) = review(session, uri, manifest, inventory)?;
    let effect = review_diff::entry_effects(&review, manifest)
        .into_iter()
        .find(|e| e.span.start <= offset && offset <= e.span.end)?;
    let causes: Vec<_> = effect.causes.iter().map(|c| c.cause.clone()).collect();
    Some(review_diff::groups_markdown(&review, &causes, AGAINST, 3))
}
