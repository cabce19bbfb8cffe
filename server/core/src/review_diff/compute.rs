//! The review computed: both sides evaluated and accounted, their accountings compared.

use crate::accounting_view::{self as av, Inventory, LevelSelection, ManifestFacts, PyValue};
use crate::{analyze, AnalysisInput};
use accounting::diff::{AccountingDiff, Cause};

/// One side of a review: a manifest evaluated statically.
#[derive(Debug, Clone)]
pub struct Side {
    pub facts: ManifestFacts,
    /// Inputs the accounting depends on that are not known statically.
    pub not_static: Vec<String>,
}

/// Evaluates a manifest's text; the error is what check-manifest prints when there is no
/// manifest dict to account.
pub fn side(text: &str) -> Result<Side, String> {
    let analysis = analyze(text, &AnalysisInput::default());
    match analysis.model.manifest.as_ref().and_then(|m| m.as_dict()) {
        Some(manifest) => Ok(Side { facts: av::facts(manifest), not_static: av::unknown_inputs(manifest) }),
        None => Err(analysis.check_lines().into_iter().map(|(_, line)| line).collect::<Vec<_>>().join("\n")),
    }
}

/// The device and levels a review counts on.
#[derive(Debug, Clone, Default)]
pub struct ReviewOptions {
    /// `--device`; else the new manifest's `device_name` (`auto`: cpu). Both sides use it.
    pub device: Option<String>,
    /// `--level ...`; else each side its own `semantic_level`.
    pub selection: Option<LevelSelection>,
}

/// The change attributed to one cause over all levels.
#[derive(Debug, Clone, PartialEq)]
pub struct CauseChange {
    pub cause: Cause,
    /// How a reviewer reads it: "float16 entry", "skip_ops += index_reduce".
    pub label: String,
    pub started: usize,
    pub stopped: usize,
}

/// The result of [`review`].
#[derive(Debug, Clone)]
pub struct Review {
    pub device: String,
    pub old_selection: LevelSelection,
    pub new_selection: LevelSelection,
    pub diff: AccountingDiff,
    /// Per cause, largest change first.
    pub changes: Vec<CauseChange>,
}

fn selection_of(facts: &ManifestFacts, chosen: Option<LevelSelection>) -> Result<LevelSelection, String> {
    match chosen {
        Some(s) => Ok(s),
        None => LevelSelection::from_manifest(facts),
    }
}

/// Accounts both sides and compares them.
pub fn review(
    inventory: &Inventory,
    old: &ManifestFacts,
    new: &ManifestFacts,
    options: &ReviewOptions,
) -> Result<Review, String> {
    let device = new.resolve_device(options.device.as_deref());
    let old_selection = selection_of(old, options.selection).map_err(|e| format!("old manifest: {e}"))?;
    let new_selection = selection_of(new, options.selection).map_err(|e| format!("new manifest: {e}"))?;
    let old_acc = accounting::account(inventory, old, &device, old_selection);
    let new_acc = accounting::account(inventory, new, &device, new_selection);
    Ok(review_of(&old_acc, old, &new_acc, new))
}

/// Compares two accountings already made (the editor keeps the committed one).
pub fn review_of(
    old_acc: &av::Accounting,
    old: &ManifestFacts,
    new_acc: &av::Accounting,
    new: &ManifestFacts,
) -> Review {
    review_prepared(old_acc, &accounting::diff::prepare(old_acc), old, new_acc, new)
}

/// [`review_of`] with the old side prepared once ([`accounting::diff::prepare`] of `old_acc`).
pub fn review_prepared(
    old_acc: &av::Accounting,
    old_prepared: &accounting::diff::Prepared,
    old: &ManifestFacts,
    new_acc: &av::Accounting,
    new: &ManifestFacts,
) -> Review {
    let new_prepared = accounting::diff::prepare(new_acc);
    let diff = accounting::diff::diff_prepared(old_acc, old_prepared, old, new_acc, &new_prepared, new);
    let mut changes: Vec<CauseChange> = diff
        .by_cause()
        .into_iter()
        .map(|(cause, started, stopped)| CauseChange { label: label(&cause, old, new), cause, started, stopped })
        .collect();
    changes.sort_by_key(|c| std::cmp::Reverse(c.started + c.stopped));
    Review {
        device: new_acc.device.device.clone(),
        old_selection: old_acc.selection,
        new_selection: new_acc.selection,
        diff,
        changes,
    }
}

/// The value of a `supported_dtypes` entry for a canonical dtype (last key wins).
pub(super) fn dtype_value<'f>(facts: &'f ManifestFacts, dt: &str) -> Option<&'f PyValue> {
    facts
        .supported_dtypes
        .iter()
        .rev()
        .find(|(k, _)| matches!(k, PyValue::Dtype(d) | PyValue::Str(d) if d == dt))
        .map(|(_, v)| v)
}

/// How a reviewer reads a cause, knowing both versions.
pub fn label(cause: &Cause, old: &ManifestFacts, new: &ManifestFacts) -> String {
    match cause {
        Cause::SkipOp(op) => match (old.skip_ops.contains(op), new.skip_ops.contains(op)) {
            (false, true) => format!("skip_ops += {op}"),
            (true, false) => format!("skip_ops -= {op}"),
            _ => cause.label(),
        },
        Cause::Dtype(dt) => match (dtype_value(old, dt).is_some(), dtype_value(new, dt).is_some()) {
            (true, false) => format!("{} (removed)", cause.label()),
            (false, true) => format!("{} (added)", cause.label()),
            _ => cause.label(),
        },
        Cause::SemanticLevel => match (&old.semantic_level, &new.semantic_level) {
            (Some(a), Some(b)) if a != b => format!("semantic_level {} -> {}", a.repr(), b.repr()),
            _ => "level selection".to_string(),
        },
        _ => cause.label(),
    }
}
