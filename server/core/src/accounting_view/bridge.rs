//! The bridge from the evaluated manifest to the show-skips engine (`accounting` crate):
//! model -> [`ManifestFacts`], the per-level [`Summary`], and the what-if questions
//! features ask (what does this entry let in, gate or remove).
//!
//! Everything here is a pure function of (inventory, facts, device). The LSP keeps the
//! last [`Summary`] and recomputes only when the facts change, so an edit to a comment or
//! a tolerance does not cost an accounting.

use crate::value::{Dict, Value, ValueKind};
use accounting::{Accounting, Inventory, LevelSelection, ManifestFacts, PyValue};

/// Converts a core value to the engine's Python value.
pub fn to_py(value: &Value) -> PyValue {
    match &value.kind {
        ValueKind::None => PyValue::None,
        ValueKind::Bool(b) => PyValue::Bool(*b),
        ValueKind::Int(i) => match i64::try_from(*i) {
            Ok(i) => PyValue::Int(i),
            Err(_) => PyValue::Other(i.to_string()),
        },
        ValueKind::BigInt(i) => PyValue::Other(i.to_string()),
        ValueKind::Float(f) => PyValue::Float(*f),
        ValueKind::Str(s) => PyValue::Str(s.clone()),
        ValueKind::List(items) => PyValue::List(items.iter().map(to_py).collect()),
        ValueKind::Tuple(items) => PyValue::Tuple(items.iter().map(to_py).collect()),
        ValueKind::Dict(d) => PyValue::Dict(d.entries.iter().map(|e| (to_py(&e.key), to_py(&e.value))).collect()),
        ValueKind::Dtype { canonical, .. } => PyValue::Dtype(canonical.clone()),
        ValueKind::Bytes(_)
        | ValueKind::Module { .. }
        | ValueKind::Slice(_)
        | ValueKind::Set(_)
        | ValueKind::Builtin(_)
        | ValueKind::Method { .. }
        | ValueKind::TypeForm(_)
        | ValueKind::Function { .. } => PyValue::Other(value.repr()),
        ValueKind::Unknown(why) => PyValue::Other(why.why.clone()),
    }
}

pub fn facts(manifest: &Dict) -> ManifestFacts {
    let root = PyValue::Dict(manifest.entries.iter().map(|e| (to_py(&e.key), to_py(&e.value))).collect());
    ManifestFacts::from_dict(&root)
}

/// Whether the accounting of this manifest is exact: values it depends on are all known.
pub fn unknown_inputs(manifest: &Dict) -> Vec<String> {
    let mut out = Vec::new();
    if manifest.open {
        out.push("the manifest has keys that are not known statically".to_string());
    }
    for key in [
        "supported_dtypes",
        "capabilities",
        "skip_ops",
        "device_count",
        "device_name",
        "hardware",
        "resource_limits",
        "supported_container_formats",
        "custom_container_decoders",
        "semantic_level",
    ] {
        if manifest.get(key).is_some_and(|e| e.value.contains_unknown()) {
            out.push(format!("`{key}` is not fully known statically"));
        }
    }
    out
}

/// Per-level run/filtered counts of a manifest on a device.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub device: String,
    /// The device name is not one the inventory has facts for; counted as a custom backend.
    pub device_assumed: bool,
    pub selection: LevelSelection,
    /// Per level 1..8: (collected items of that level, runnable, filtered).
    pub levels: [(usize, usize, usize); 8],
    /// For the selection: tests that run, and records not run (show-skips' numbers).
    pub included: usize,
    pub collected: usize,
    pub deselected: usize,
    pub records: usize,
    pub not_modelled: Vec<String>,
    pub live_device_dependent: usize,
    /// Tests torchcts' known-segfault ledger records as `known_backend_crash` (not run),
    /// as show-skips prints their ids.
    pub known_crashes: Vec<String>,
    /// The facts this summary was computed from (the cache key).
    pub facts: ManifestFacts,
    /// The accounting's counts kept per unit, for the what-if questions of the inlay
    /// hints and hovers ([`Questions`]).
    pub kept: std::sync::Arc<accounting::KeptCounts>,
}

pub fn summarize(inventory: &Inventory, facts: &ManifestFacts, device_override: Option<&str>) -> Summary {
    let device = facts.resolve_device(device_override);
    let selection = LevelSelection::from_manifest(facts).unwrap_or(LevelSelection::Cumulative(3));
    let (acc, kept) = accounting::account_keeping_units(inventory, facts, &device, selection);
    summary_of(&acc, facts.clone(), kept)
}

fn summary_of(acc: &Accounting, facts: ManifestFacts, kept: accounting::KeptCounts) -> Summary {
    let mut levels = [(0, 0, 0); 8];
    for (i, l) in acc.levels.iter().enumerate() {
        levels[i] = (l.collected, l.runnable, l.filtered);
    }
    Summary {
        device: acc.device.device.clone(),
        device_assumed: acc.device.assumed,
        selection: acc.selection,
        levels,
        included: acc.included,
        collected: acc.collected,
        deselected: acc.deselected,
        records: acc.record_count,
        not_modelled: acc.not_modelled.clone(),
        live_device_dependent: acc.live_device_dependent,
        known_crashes: known_crashes(acc),
        facts,
        kept: std::sync::Arc::new(kept),
    }
}

/// The `known_backend_crash` records (only mps with a torch the ledger covers has any; the
/// records are listed only then).
fn known_crashes(acc: &Accounting) -> Vec<String> {
    let any = acc.reason_counts.iter().any(|(r, n)| *n > 0 && acc.reason_name(*r) == "known_backend_crash");
    if !any {
        return Vec::new();
    }
    acc.device_fact_records("known_backend_crash").iter().map(|r| acc.printed_id(r).to_string()).collect()
}

/// Per level 1..8: (collected, runnable, filtered), as in [`Summary::levels`].
pub type Levels = [(usize, usize, usize); 8];

/// Runnable tests at levels `1..=level` (what `--level level` runs).
pub fn runnable_up_to(summary: &Summary, level: usize) -> usize {
    runnable_in(&summary.levels, level)
}

/// Filtered (not run for a reason other than the level) at levels `1..=level`.
pub fn filtered_up_to(summary: &Summary, level: usize) -> usize {
    filtered_in(&summary.levels, level)
}

pub(super) fn runnable_in(levels: &Levels, level: usize) -> usize {
    levels.iter().take(level.min(8)).map(|l| l.1).sum()
}

fn filtered_in(levels: &Levels, level: usize) -> usize {
    levels.iter().take(level.min(8)).map(|l| l.2).sum()
}

/// The selection's level bound for cumulative counts.
pub fn selected_level(summary: &Summary) -> usize {
    summary.selection.max_level() as usize
}

/// Per-level counts with `changed` facts, what [`summarize`] would give for them: on the
/// base's device and selection only the item groups the change touches are decided again
/// (`accounting::what_if_levels`); elsewhere a whole accounting.
pub fn what_if(
    inventory: &Inventory,
    base: &Summary,
    changed: &ManifestFacts,
    device_override: Option<&str>,
) -> Levels {
    let device = changed.resolve_device(device_override);
    let selection = LevelSelection::from_manifest(changed).unwrap_or(LevelSelection::Cumulative(3));
    if device != base.device || selection != base.selection {
        return summarize(inventory, changed, device_override).levels;
    }
    let levels = std::array::from_fn(|i| {
        let (collected, runnable, filtered) = base.levels[i];
        accounting::LevelCounts { level: i as u8 + 1, collected, runnable, filtered }
    });
    let baseline = accounting::Baseline { facts: &base.facts, device: &base.device, selection, levels };
    let counts = accounting::what_if_levels(inventory, &baseline, changed);
    std::array::from_fn(|i| (counts[i].collected, counts[i].runnable, counts[i].filtered))
}

/// Many what-if questions on one summary's manifest (the inlay hints ask one per entry):
/// the base accounting is kept per unit (`accounting::WhatIfs`), so each question decides
/// only the units it touches.
pub struct Questions<'a> {
    inventory: &'a Inventory,
    summary: &'a Summary,
    base: accounting::WhatIfs<'a, 'a>,
}

impl<'a> Questions<'a> {
    pub fn new(inventory: &'a Inventory, summary: &'a Summary) -> Questions<'a> {
        let base = accounting::WhatIfs::from_kept(
            inventory,
            &summary.facts,
            &summary.device,
            summary.selection,
            &summary.kept,
        );
        Questions { inventory, summary, base }
    }

    /// [`what_if`] on the summary's device.
    pub fn what_if(&self, changed: &ManifestFacts) -> Levels {
        let selection = LevelSelection::from_manifest(changed).unwrap_or(LevelSelection::Cumulative(3));
        if selection != self.summary.selection {
            return what_if(self.inventory, self.summary, changed, Some(&self.summary.device));
        }
        let counts = self.base.what_if(changed);
        std::array::from_fn(|i| (counts[i].collected, counts[i].runnable, counts[i].filtered))
    }
}

/// Run/filtered counts at the selected level after changing the facts: `(run, filtered)`
/// differences, new minus old.
pub fn delta(
    inventory: &Inventory,
    base: &Summary,
    changed: &ManifestFacts,
    device_override: Option<&str>,
) -> (i64, i64) {
    let other = what_if(inventory, base, changed, device_override);
    let level = selected_level(base);
    (
        runnable_in(&other, level) as i64 - runnable_up_to(base, level) as i64,
        filtered_in(&other, level) as i64 - filtered_up_to(base, level) as i64,
    )
}

/// Per level, how many tests run with `changed` facts minus with `base` facts.
pub fn per_level_delta(inventory: &Inventory, base: &Summary, changed: &ManifestFacts) -> [i64; 8] {
    let other = what_if(inventory, base, changed, Some(&base.device));
    std::array::from_fn(|i| other[i].1 as i64 - base.levels[i].1 as i64)
}
