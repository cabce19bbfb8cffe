//! `check --fix` and `--diff`: the core's fix-all engine (`torchcts_core::actions::fix_all`,
//! the one the editor's `source.fixAll.torchcts` runs too) on a manifest, with the input
//! the CLI analyses it with, and the unified diff `--diff` prints.

use std::path::Path;
use torchcts_core::accounting_view::Inventory;
use torchcts_core::actions::FixAll;
use torchcts_core::regex_check::PythonVersion;

/// Fixes `text`, the manifest at `path`: the safe fixes (every preferred one with
/// `unsafe_fixes`). Analysed with `inventory`, else the embedded one, as the editor analyses
/// it: fix-all's "no new finding" then weighs the same findings in both.
pub fn fix(
    path: &Path,
    text: &str,
    inventory: Option<&Inventory>,
    python: PythonVersion,
    unsafe_fixes: bool,
) -> FixAll {
    let inventory = inventory.unwrap_or_else(|| Inventory::embedded());
    super::with_analysis_input(path, Some(inventory), python, None, |input| {
        torchcts_core::cancel::uncancelled(|cancel| torchcts_core::actions::fix_all(text, input, unsafe_fixes, cancel))
    })
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
