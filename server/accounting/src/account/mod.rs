//! The accounting: what `torchcts show-skips` reports for one manifest, device
//! and level selection, computed from the inventory.
//!
//! One pass over the items of the maximal collection, in collection order:
//! manifest-generated parameter sets (OpInfo forward/backward/errors, generated
//! foreach/fused) are first narrowed to the items the manifest would generate
//! (with the placeholder item pytest gets when a set is empty), then every item
//! goes through the rule chain of `pytest_collection_modifyitems` (first reason
//! wins, except that the dtype rule overwrites the backend gate). OpInfo records
//! that never become items ("pending" records) follow, backward before forward.
//!
//! Details are not formatted during the pass: a [`Record`] keeps the facts and
//! [`Accounting::detail`] formats the text on demand.

mod chain;
mod context;
mod detail;
mod phases;
mod preflight;
mod regex;
mod result;
mod tally;
#[cfg(test)]
mod tests;

pub(crate) use context::{dtype_entry, Ctx, DtypeKeys};
pub(crate) use result::node_subject;
pub use result::{
    Accounting, AccountingProblem, Detail, DeviceResolution, DtypeLabel, LabelKind, LevelCounts, NodeRef,
    PlaceholderKind, Record,
};
pub(crate) use tally::UnitCounts;

use crate::bits::Bits;
use crate::engine::dependents::PendingRef;
use crate::engine::hot::HotItem;
use crate::facts::LevelSelection;
use crate::facts::ManifestFacts;
use crate::inventory::Item;
use crate::inventory::Reason;
use crate::inventory::StrId;
use crate::inventory::CUSTOM_DEVICE_PLACEHOLDER;
use crate::Inventory;
use context::new_context;
use phases::{decide_groups, empty_parameter_sets, pending_opinfo_records, walk_items, GroupPass};
use result::FactsForText;
use tally::Tally;

fn placeholder_hot(inv: &Inventory, k: PlaceholderKind) -> &HotItem {
    &inv.engine.hot.placeholders[k as usize]
}

fn placeholder(inv: &Inventory, k: PlaceholderKind) -> &Item {
    match k {
        PlaceholderKind::OpinfoForward => &inv.placeholders.forward,
        PlaceholderKind::OpinfoBackward => &inv.placeholders.backward,
        PlaceholderKind::OpinfoErrors => &inv.placeholders.errors,
        PlaceholderKind::Foreach => &inv.placeholders.foreach,
    }
}

/// Resolve a device name to the device class whose facts apply.
pub fn resolve_device(inv: &Inventory, device: &str) -> DeviceResolution {
    if inv.devices.iter().any(|d| d.name == device) {
        return DeviceResolution { device: device.into(), class: device.into(), assumed: false };
    }
    if let Some((base, idx)) = device.split_once(':') {
        if !idx.is_empty() && idx.chars().all(|c| c.is_ascii_digit()) && inv.devices.iter().any(|d| d.name == base) {
            return DeviceResolution { device: device.into(), class: base.into(), assumed: true };
        }
    }
    DeviceResolution { device: device.into(), class: CUSTOM_DEVICE_PLACEHOLDER.into(), assumed: true }
}

/// Account for `facts` on `device` with `selection`: what show-skips reports.
pub fn account<'a>(
    inv: &'a Inventory,
    facts: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
) -> Accounting<'a> {
    account_with(inv, facts, device, selection, Grouping::Groups, false).0
}

/// [`account`], with its counts also kept per unit for what-if questions on the same
/// manifest ([`crate::WhatIfs::from_kept`]): a little more work per accounting, and none
/// of it again when the editor then asks its questions.
pub fn account_keeping_units<'a>(
    inv: &'a Inventory,
    facts: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
) -> (Accounting<'a>, KeptCounts) {
    let (accounting, kept) = account_with(inv, facts, device, selection, Grouping::Groups, true);
    let kept = kept.unwrap_or_else(|| KeptCounts {
        levels: accounting.levels,
        units: UnitCounts::new(inv),
        keys: DtypeKeys::of(inv, facts),
    });
    (accounting, kept)
}

/// An accounting's counts kept per unit ([`account_keeping_units`]).
#[derive(Debug, Clone, PartialEq)]
pub struct KeptCounts {
    pub(crate) levels: [LevelCounts; 8],
    pub(crate) units: UnitCounts,
    pub(crate) keys: DtypeKeys,
}

/// Whether items are decided per group (the fast path) or one by one (the
/// reference the fast path is tested against).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grouping {
    Groups,
    #[cfg_attr(not(test), allow(dead_code))]
    ItemByItem,
}

fn account_with<'a>(
    inv: &'a Inventory,
    facts: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
    grouping: Grouping,
    keep_units: bool,
) -> (Accounting<'a>, Option<KeptCounts>) {
    let (mut ctx, resolution) = new_context(inv, facts, device, selection, None);
    let reasons = ctx.reasons;
    let max_level = selection.max_level();
    let mut tally = Tally::new(inv.items.len(), inv.reasons.len());
    if keep_units {
        tally.units = Some(UnitCounts::new(inv));
    }
    let (mut tally, pass) = run_phases_into(&mut ctx, tally, grouping, None);
    let kept = tally.units.take().map(|units| KeptCounts { levels: tally.levels, units, keys: ctx.keys.clone() });
    let GroupPass { visited, group_decision, group_outcomes, .. } = pass;

    let reason_counts = reasons_in_first_seen_order(&tally);
    let mut not_modelled = not_modelled(facts, &resolution);
    not_modelled.append(&mut ctx.ledger_notes);
    let facts_repr = FactsForText {
        device_count: match &facts.device_count {
            None => "1".to_string(),
            Some(v) => v.str_(),
        },
        max_level,
        label: selection.label(),
        patterns: std::mem::take(&mut ctx.patterns),
        values: std::mem::take(&mut ctx.values),
    };
    ctx.return_regex_entries();
    let problems = std::mem::take(&mut ctx.problems);
    drop(ctx);
    let accounting = Accounting {
        inventory: inv,
        layout: facts.layout.clone(),
        device: resolution,
        selection,
        collected: tally.collected,
        deselected: tally.deselected,
        included: tally.collected - tally.deselected,
        executable: tally.executable,
        record_count: tally.record_count,
        stored_records: tally.stored_records,
        stored_positions: tally.stored_positions,
        visited,
        group_decision,
        group_outcomes,
        runnable_items: tally.runnable_items,
        runnable_placeholders: tally.runnable_placeholders,
        reason_counts,
        levels: tally.levels,
        problems,
        live_device_dependent: tally.live_device_dependent,
        not_modelled,
        facts_repr,
        level_reasons: (reasons.level_gt, reasons.level_out),
    };
    (accounting, kept)
}

/// (reason, count) in the order show-skips first meets the reasons.
fn reasons_in_first_seen_order(tally: &Tally) -> Vec<(Reason, usize)> {
    let mut seen: Vec<(u64, Reason, usize)> = tally
        .reasons
        .iter()
        .enumerate()
        .filter(|(_, (n, _))| *n > 0)
        .map(|(r, &(n, first))| (first, r as Reason, n))
        .collect();
    seen.sort_unstable();
    seen.into_iter().map(|(_, r, n)| (r, n)).collect()
}

/// What the inventory cannot model for these facts and this device.
fn not_modelled(facts: &ManifestFacts, resolution: &DeviceResolution) -> Vec<String> {
    let mut not_modelled = Vec::new();
    if facts.has_custom_test_dirs {
        not_modelled.push(
            "custom_test_dirs: user test directories are collected by the real tool but are not in the inventory"
                .into(),
        );
    }
    if resolution.assumed {
        not_modelled.push(format!(
            "device {:?} has no recorded facts; device rules assume the behaviour of {:?}",
            resolution.device, resolution.class
        ));
    }
    not_modelled
}

/// The phases of an accounting over the whole suite, or over `scope` only.
fn run_phases(ctx: &mut Ctx, grouping: Grouping, scope: Option<&Scope>) -> (Tally, GroupPass) {
    run_phases_into(ctx, Tally::new(ctx.inv.items.len(), ctx.inv.reasons.len()), grouping, scope)
}

fn run_phases_into(ctx: &mut Ctx, mut tally: Tally, grouping: Grouping, scope: Option<&Scope>) -> (Tally, GroupPass) {
    let placeholder_at = empty_parameter_sets(ctx);
    let mut pass = decide_groups(ctx, &mut tally, grouping, scope);
    walk_items(ctx, &mut tally, &mut pass, &placeholder_at);
    pending_opinfo_records(ctx, &mut tally, scope);
    (tally, pass)
}

/// Part of the suite: the item groups, ungrouped items and dtypes of pending OpInfo
/// records a what-if question touches (`what_if.rs`). Placeholders are always in it.
pub(crate) struct Scope<'d> {
    /// Selected groups, by index.
    pub groups: Bits,
    /// Selected ungrouped items and every member of the selected groups.
    pub items: Bits,
    /// Per dtype (canonical string id) whose pending OpInfo records are in scope: those records.
    pub pending: Vec<(StrId, &'d [PendingRef])>,
}

/// Run `f` with the rule chain's context for `facts`; `keys`, when given, are
/// [`DtypeKeys::of`] these facts.
pub(crate) fn with_context<R>(
    inv: &Inventory,
    facts: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
    keys: Option<&DtypeKeys>,
    f: impl FnOnce(&mut Ctx) -> R,
) -> R {
    let (mut ctx, _) = new_context(inv, facts, device, selection, keys);
    let out = f(&mut ctx);
    ctx.return_regex_entries();
    out
}

/// Per-level counts of the nodes in `scope` alone, as [`account`] counts them.
pub(crate) fn scoped_levels(ctx: &mut Ctx, scope: &Scope) -> [LevelCounts; 8] {
    run_phases(ctx, Grouping::Groups, Some(scope)).0.levels
}
