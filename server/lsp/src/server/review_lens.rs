//! "vs HEAD" in the editor: when a manifest is in a git repository, each entry whose change
//! since the committed version makes tests start or stop running gets a code lens ("vs HEAD:
//! -412 tests"), a hover listing the groups, and a dtype or capability switched off gets an
//! information diagnostic naming what it removes (`torchcts_core::review_diff`).
//!
//! Cost: the committed text is read with `git show` only on didOpen and on didSave when
//! `.git/HEAD` (or the branch it points to) changed since the last read, never per keystroke;
//! its accounting is kept, and the review of the current text is recomputed only when the
//! current facts change.

use crate::server::convert::Positions;
use accounting::diff::Prepared;
use runner::git::HeadKey;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};
use torchcts_core::accounting_view::{self as av, Accounting, Inventory, LevelSelection, ManifestFacts};
use torchcts_core::review_diff::{self, Review};
use torchcts_core::value::Dict;
use torchcts_core::{Analysis, Finding};
use tower_lsp_server::ls_types::{CodeLens, Command, Uri};

/// What the review is computed against, as the diagnostics and lenses say it.
const AGAINST: &str = "HEAD";

/// The committed accounting with what diffs need of it, shared with running reviews.
type PreparedAccounting = Arc<(Accounting<'static>, Prepared)>;

/// The committed version of one document and the caches built on it.
#[derive(Default)]
struct Committed {
    head: Option<HeadKey>,
    /// `None`: not in a repository, not committed, or no manifest dict at HEAD.
    facts: Option<ManifestFacts>,
    /// The committed accounting for (inventory, device, selection), prepared for diffs.
    accounting: Option<(usize, String, LevelSelection, PreparedAccounting)>,
    /// The review of the last current facts (with the inventory it was counted with).
    review: Option<(usize, ManifestFacts, Arc<Review>)>,
}

fn store() -> &'static Mutex<HashMap<String, Committed>> {
    static STORE: OnceLock<Mutex<HashMap<String, Committed>>> = OnceLock::new();
    STORE.get_or_init(Default::default)
}

fn lock() -> std::sync::MutexGuard<'static, HashMap<String, Committed>> {
    store().lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// didOpen and didSave: (re-)reads the committed version when HEAD moved since the last read
/// (or on the first call for this document). Runs git off the async threads.
pub async fn note_head(uri: &Uri) {
    let Some(path) = uri.to_file_path().map(|p| p.to_path_buf()) else { return };
    let key = uri.as_str().to_string();
    let _ = tokio::task::spawn_blocking(move || refresh_committed(&key, &path)).await;
}

fn refresh_committed(key: &str, path: &Path) {
    let head = runner::git::git_dir(path).map(|g| runner::git::head_key(&g));
    let known = lock().get(key).map(|c| c.head.clone());
    if known.is_some() && known.flatten() == head {
        return;
    }
    let facts = head
        .as_ref()
        .and_then(|_| runner::git::committed_text(path, AGAINST).ok())
        .and_then(|text| review_diff::side(&text).ok())
        .map(|side| side.facts);
    lock().insert(key.to_string(), Committed { head, facts, ..Committed::default() });
}

/// didClose: forgets the document's committed version.
pub fn forget(uri: &Uri) {
    lock().remove(uri.as_str());
}

fn inventory_key(inventory: &'static Inventory) -> usize {
    inventory as *const Inventory as usize
}

/// The review of `manifest` against the committed version (cached per current facts), and
/// the committed facts.
fn review(uri: &Uri, manifest: &Dict, inventory: &'static Inventory) -> Option<(Arc<Review>, ManifestFacts)> {
    let facts = av::facts(manifest);
    let inv = inventory_key(inventory);
    let mut store = lock();
    let committed = store.get_mut(uri.as_str())?;
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
            let side = crate::server::dispatch::guarded("review accounting", || {
                let acc = accounting::account(inventory, &old, &device, old_selection);
                let prepared = accounting::diff::prepare(&acc);
                Arc::new((acc, prepared))
            })?;
            committed.accounting = Some((inv, device.clone(), old_selection, side.clone()));
            side
        }
    };
    let result = crate::server::dispatch::guarded("review", || {
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
pub fn findings(uri: &Uri, analysis: &Analysis, inventory: Option<&'static Inventory>) -> Vec<Finding> {
    let (Some(manifest), Some(inventory)) = (manifest_of(analysis), inventory) else { return Vec::new() };
    match review(uri, manifest, inventory) {
        Some((review, old)) => review_diff::switched_off_findings(&review, &old, manifest, AGAINST),
        None => Vec::new(),
    }
}

/// A lens on each entry whose change since HEAD makes tests start or stop running.
pub fn code_lenses(
    uri: &Uri,
    analysis: &Analysis,
    positions: &Positions,
    inventory: &'static Inventory,
) -> Vec<CodeLens> {
    let Some(manifest) = manifest_of(analysis) else { return Vec::new() };
    let Some((review, _)) = review(uri, manifest, inventory) else { return Vec::new() };
    review_diff::entry_effects(&review, manifest)
        .into_iter()
        .map(|effect| {
            let labels: Vec<&str> = effect.causes.iter().map(|c| c.label.as_str()).collect();
            let what = if effect.exact { String::new() } else { format!(" ({})", labels.join(", ")) };
            CodeLens {
                range: positions.range(&(effect.span.start..effect.span.start)),
                command: Some(Command {
                    title: format!(
                        "vs {AGAINST}: {}{what}",
                        review_diff::signed_counts(effect.started, effect.stopped)
                    ),
                    // Informational: nothing to run.
                    command: String::new(),
                    arguments: None,
                }),
                data: None,
            }
        })
        .collect()
}

/// Hover on a changed entry: the groups of tests it makes start or stop running.
pub fn hover_markdown(uri: &Uri, analysis: &Analysis, offset: usize, inventory: &'static Inventory) -> Option<String> {
    let manifest = manifest_of(analysis)?;
    let (review, _) = review(uri, manifest, inventory)?;
    let effect = review_diff::entry_effects(&review, manifest)
        .into_iter()
        .find(|e| e.span.start <= offset && offset <= e.span.end)?;
    let causes: Vec<_> = effect.causes.iter().map(|c| c.cause.clone()).collect();
    Some(review_diff::groups_markdown(&review, &causes, AGAINST, 3))
}
