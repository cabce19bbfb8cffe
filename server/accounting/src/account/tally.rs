//! Counting: the accounting's counts and stored records ([`Tally`]), and the counts kept
//! per unit for what-if questions ([`UnitCounts`]).

use super::context::Ctx;
use super::phases::Outcome;
use super::result::Detail;
use super::result::LevelCounts;
use super::result::NodeRef;
use super::result::PlaceholderKind;
use super::result::Record;
use super::Scope;
use crate::bits::Bits;
use crate::engine::hot::NO_GROUP;
use crate::facts::LevelSelection;
use crate::facts::Mode;
use crate::inventory::Reason;
use crate::inventory::StrId;
use crate::Inventory;
use std::collections::HashMap;

/// The index of a semantic level (1 to 8) in per-level arrays.
pub(super) fn level_index(level: u8) -> usize {
    (level.clamp(1, 8) - 1) as usize
}

/// Position in collection order of an item, and of a placeholder collected
/// before item `at`; pending OpInfo records come after all of them.
pub(super) fn item_position(i: usize) -> u64 {
    2 * i as u64 + 1
}

pub(super) fn placeholder_position(at: usize) -> u64 {
    2 * at as u64
}

pub(super) const PENDING_POSITION: u64 = 1 << 40;

/// The level rule's reason and detail for a node with no other reason whose
/// level is not selected.
pub(super) fn level_outcome(
    selection: LevelSelection,
    (level_gt, level_out): (Reason, Reason),
    level: u8,
) -> (Reason, Detail) {
    let (mode, _, max_level) = selection.normalized();
    if mode == Mode::Cumulative && level > max_level {
        (level_gt, Detail::LevelAbove(level))
    } else {
        (level_out, Detail::LevelOutside(level))
    }
}

/// The counts and records of the accounting.
pub(super) struct Tally {
    pub(super) stored_records: Vec<Record>,
    pub(super) stored_positions: Vec<u64>,
    pub(super) runnable_items: Bits,
    pub(super) runnable_placeholders: Vec<(usize, PlaceholderKind, u8)>,
    pub(super) record_count: usize,
    pub(super) collected: usize,
    pub(super) deselected: usize,
    pub(super) executable: usize,
    pub(super) live_device_dependent: usize,
    pub(super) levels: [LevelCounts; 8],
    /// Per reason: number of records and position of the first.
    pub(super) reasons: Vec<(usize, u64)>,
    pub(super) pending: u64,
    /// Per-unit counts, kept only when asked ([`account_keeping_units`]).
    pub(super) units: Option<UnitCounts>,
}

/// The counts of one accounting per unit the what-if questions re-decide (item group,
/// ungrouped item, placeholder, pending OpInfo dtype): a question subtracts the units it
/// re-decides from the base counts without deciding them again.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UnitCounts {
    /// Per group: (runnable, filtered) members, all of the group's level.
    pub(super) groups: Vec<[u32; 2]>,
    /// Per ungrouped item: 0 not collected, 1 runnable, 2 filtered.
    pub(super) items: Vec<u8>,
    pub(super) placeholders: [LevelCounts; 8],
    /// Pending OpInfo records per canonical dtype (filtered at the OpInfo level).
    pub(super) pending: HashMap<StrId, u32>,
}

impl UnitCounts {
    pub(super) fn new(inv: &Inventory) -> UnitCounts {
        UnitCounts {
            groups: vec![[0; 2]; inv.engine.hot.groups.len()],
            items: vec![0; inv.items.len()],
            placeholders: Default::default(),
            pending: HashMap::new(),
        }
    }

    /// Per-level counts of the units in `scope`, as [`scoped_levels`] counts them.
    pub(crate) fn levels_in(&self, inv: &Inventory, scope: &Scope) -> [LevelCounts; 8] {
        let mut levels = self.placeholders;
        let mut count = |level: u8, runnable: u32, filtered: u32| {
            let l = &mut levels[level_index(level)];
            l.collected += (runnable + filtered) as usize;
            l.runnable += runnable as usize;
            l.filtered += filtered as usize;
        };
        for g in scope.groups.iter() {
            let [runnable, filtered] = self.groups[g];
            if let Some(&first) = inv.engine.hot.members(g).first() {
                count(inv.engine.hot.items[first as usize].level, runnable, filtered);
            }
        }
        for i in scope.items.iter().filter(|&i| inv.engine.hot.group_of[i] == NO_GROUP) {
            match self.items[i] {
                1 => count(inv.engine.hot.items[i].level, 1, 0),
                2 => count(inv.engine.hot.items[i].level, 0, 1),
                _ => {}
            }
        }
        for (dt, _) in &scope.pending {
            let n = self.pending.get(dt).copied().unwrap_or(0) as usize;
            levels[level_index(inv.opinfo_level)].filtered += n;
        }
        levels
    }

    pub(super) fn group(&mut self, g: usize, filtered: bool, n: usize) {
        self.groups[g][usize::from(filtered)] += n as u32;
    }

    pub(super) fn node(&mut self, inv: &Inventory, node: NodeRef, level: u8, filtered: bool) {
        match node {
            NodeRef::Item(i) => match inv.engine.hot.group_of[i as usize] {
                NO_GROUP => self.items[i as usize] = 1 + u8::from(filtered),
                g => self.group(g as usize, filtered, 1),
            },
            NodeRef::Placeholder(_) => {
                let l = &mut self.placeholders[level_index(level)];
                l.collected += 1;
                if filtered {
                    l.filtered += 1;
                } else {
                    l.runnable += 1;
                }
            }
            NodeRef::Pending { dt, .. } => {
                let dt = inv.canonical_str.get(dt as usize).copied().unwrap_or(dt);
                *self.pending.entry(dt).or_default() += 1;
            }
        }
    }
}

impl Tally {
    pub(super) fn new(items: usize, reasons: usize) -> Tally {
        let mut levels = [LevelCounts::default(); 8];
        for (k, l) in levels.iter_mut().enumerate() {
            l.level = k as u8 + 1;
        }
        Tally {
            stored_records: Vec::with_capacity(1024),
            stored_positions: Vec::with_capacity(1024),
            runnable_items: Bits::new(items),
            runnable_placeholders: Vec::new(),
            record_count: 0,
            collected: 0,
            deselected: 0,
            executable: 0,
            live_device_dependent: 0,
            levels,
            reasons: vec![(0, u64::MAX); reasons],
            pending: 0,
            units: None,
        }
    }

    pub(super) fn note(&mut self, reason: Reason, position: u64, n: usize, deselected: bool) {
        if let Some(slot) = self.reasons.get_mut(reason as usize) {
            slot.0 += n;
            slot.1 = slot.1.min(position);
        }
        self.record_count += n;
        if deselected {
            self.deselected += n;
        }
    }

    /// `n` collected nodes of `level` with no reason; the first at `position`.
    pub(super) fn runnable(&mut self, ctx: &Ctx, level: u8, position: u64, n: usize) {
        let l = &mut self.levels[level_index(level)];
        l.collected += n;
        l.runnable += n;
        self.collected += n;
        if ctx.selection.contains(level) {
            self.executable += n;
        } else {
            let (reason, _) = level_outcome(ctx.selection, (ctx.reasons.level_gt, ctx.reasons.level_out), level);
            let desel = ctx.inv.deselect_reasons.get(reason as usize).copied().unwrap_or(false);
            self.note(reason, position, n, desel);
        }
    }

    /// `n` collected items of `level` filtered for one reason; the first at `position`.
    pub(super) fn filtered_in_bulk(
        &mut self,
        ctx: &Ctx,
        level: u8,
        (reason, _, live): (Reason, Detail, bool),
        position: u64,
        n: usize,
    ) {
        let l = &mut self.levels[level_index(level)];
        l.collected += n;
        l.filtered += n;
        self.collected += n;
        if live {
            self.live_device_dependent += n;
        }
        let desel = ctx.inv.deselect_reasons.get(reason as usize).copied().unwrap_or(false);
        self.note(reason, position, n, desel);
    }

    /// Count one collected node (`at`: the item index it is collected at)
    /// with the chain's outcome for it.
    #[inline]
    pub(super) fn add(&mut self, ctx: &Ctx, at: usize, node: NodeRef, level: u8, outcome: Outcome) {
        let position = match node {
            NodeRef::Placeholder(_) => placeholder_position(at),
            _ => item_position(at),
        };
        if let Some(units) = &mut self.units {
            units.node(ctx.inv, node, level, outcome.is_some());
        }
        let Some((reason, detail, live)) = outcome else {
            match node {
                NodeRef::Item(i) => self.runnable_items.set(i as usize),
                NodeRef::Placeholder(kind) => self.runnable_placeholders.push((at, kind, level)),
                NodeRef::Pending { .. } => {}
            }
            self.runnable(ctx, level, position, 1);
            return;
        };
        self.collected += 1;
        let l = &mut self.levels[level_index(level)];
        l.collected += 1;
        l.filtered += 1;
        let desel = ctx.inv.deselect_reasons.get(reason as usize).copied().unwrap_or(false);
        self.store(position, Record { node, reason, detail, level, deselected: desel, live_device_dependent: live });
    }

    pub(super) fn store(&mut self, position: u64, record: Record) {
        if record.live_device_dependent {
            self.live_device_dependent += 1;
        }
        self.note(record.reason, position, 1, record.deselected);
        self.stored_records.push(record);
        self.stored_positions.push(position);
    }

    /// A pending OpInfo record (not a pytest item).
    pub(super) fn add_pending(&mut self, inv: &Inventory, record: Record) {
        if let Some(units) = &mut self.units {
            units.node(inv, record.node, record.level, true);
        }
        self.levels[level_index(record.level)].filtered += 1;
        let position = PENDING_POSITION + self.pending;
        self.pending += 1;
        self.store(position, record);
    }
}
