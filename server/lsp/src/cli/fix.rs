//! `check --fix` and `--diff`: the core's fix-all engine (`torchcts_core::actions::fix_all`,
//! the one the editor's `source.fixAll.torchcts` runs too) on a manifest, with the input
//! the CLI analyses it with, and the unified diff `--diff` prints.

use crate::host::Surroundings;
use torchcts_core::accounting_view::Inventory;
use torchcts_core::actions::FixAll;

/// Fixes `text` in its `surroundings`: the safe fixes (every preferred one with
/// `unsafe_fixes`). Analysed with `inventory`, else the embedded one, as the editor analyses
/// it: fix-all's "no new finding" then weighs the same findings in both. Without evidence
/// notes (none has a safe fix; `check` places them on the result).
pub fn fix(surroundings: &Surroundings, text: &str, inventory: Option<&Inventory>, unsafe_fixes: bool) -> FixAll {
    let inventory = inventory.unwrap_or_else(|| Inventory::embedded());
    let bare = surroundings.clone().with_evidence(Default::default());
    torchcts_core::cancel::uncancelled(|cancel| bare.fix_all(text, Some(inventory), unsafe_fixes, cancel))
}

/// A unified diff of `old` to `new` for `path` (`--- a/PATH`, `+++ b/PATH`), empty when
/// they are equal.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}
