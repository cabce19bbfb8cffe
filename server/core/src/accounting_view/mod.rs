//! The core's view of the show-skips engine (`accounting` crate), by feature:
//!
//! - [`bridge`]: model -> [`ManifestFacts`], the per-level [`Summary`], what-if deltas;
//! - [`inventory_hints`](mod@inventory_hints): findings only the inventory can give;
//! - [`operators`]: the suite's operator names a regex lets in, nearest names (memoised);
//! - [`run_targets`]: the tests a run from the cursor covers, scratch manifests;
//! - [`inlay_hints`]: the per-entry test counts shown after entries.
//!
//! Callers use the flat paths re-exported here (`accounting_view::facts`, ...).

mod bridge;
mod inlay_hints;
mod inventory_hints;
mod operators;
mod run_targets;

pub use accounting::{Accounting, Inventory, LevelSelection, ManifestFacts, PyValue};
pub use bridge::{
    delta, facts, filtered_up_to, per_level_delta, runnable_up_to, selected_level, summarize, to_py, unknown_inputs,
    what_if, Levels, Questions, Summary,
};
pub use inlay_hints::{entry_counts, entry_counts_until};
pub use inventory_hints::inventory_hints;
pub use operators::{matched_count, nearby_unmatched, regex_split};
pub use run_targets::{
    changed_entries_target, executable_ids, run_target, run_target_as, scratch_manifest, CountedAs, RunTarget,
};
