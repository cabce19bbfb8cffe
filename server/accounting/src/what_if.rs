//! What-if questions on an accounting: the per-level counts of a manifest changed a little
//! (a dtype entry removed, a capability flipped), from the counts of the manifest as it is.
//!
//! A change to `supported_dtypes` or `capabilities` only changes the decisions of the
//! item groups and ungrouped items whose rule chain reads the entries that differ (and of
//! the placeholders and pending OpInfo records of those dtypes). Those units are decided
//! twice, with the base facts and with the changed ones, and the difference is applied to
//! the base counts; the rest of the suite is not visited. Any other difference (skip_ops,
//! hardware, the level, ...), or a capability the presence rules read for many items
//! (`sparse`, `ieee754`), falls back to a whole accounting. The result equals
//! [`crate::account`]'s counts for the changed facts (`server/core/tests/what_if.rs` holds
//! it to that on every entry of the corpus manifests).

use foldhash::HashMap;

use crate::account::{account, dtype_entry, scoped_levels, Bits, LevelCounts, Scope};
use crate::facts::{canonical_dtype, LevelSelection, ManifestFacts, PyValue};
use crate::hot::NO_GROUP;
use crate::inventory::{rare, Inventory, Str};

/// The accounting a what-if question starts from: `levels` must be
/// [`crate::account`]`(inventory, facts, device, selection).levels`.
pub struct Baseline<'f> {
    pub facts: &'f ManifestFacts,
    pub device: &'f str,
    pub selection: LevelSelection,
    pub levels: [LevelCounts; 8],
}

/// Per-level counts for `changed` facts on the baseline's device and selection.
pub fn what_if_levels(inv: &Inventory, base: &Baseline, changed: &ManifestFacts) -> [LevelCounts; 8] {
    let Some(scope) = change_scope(inv, base.facts, changed) else {
        return account(inv, changed, base.device, base.selection).levels;
    };
    let before = scoped_levels(inv, base.facts, base.device, base.selection, &scope);
    let after = scoped_levels(inv, changed, base.device, base.selection, &scope);
    std::array::from_fn(|l| {
        let (b, x, y) = (base.levels[l], before[l], after[l]);
        LevelCounts {
            level: b.level,
            collected: b.collected + y.collected - x.collected,
            runnable: b.runnable + y.runnable - x.runnable,
            filtered: b.filtered + y.filtered - x.filtered,
        }
    })
}

/// Groups and ungrouped items (indices) whose decision reads one manifest fact.
#[derive(Default)]
struct Units {
    groups: Vec<u32>,
    items: Vec<u32>,
}

/// Which units read which facts; built from the inventory on the first what-if question.
pub(crate) struct Dependents {
    /// Per dtype (canonical string id): units that read its `supported_dtypes` entry.
    by_dtype: HashMap<Str, Units>,
    /// Per capability set (`HotTable::requires_sets`): units gated by it.
    by_requires: Vec<Units>,
    /// Units that read the `rng` and `device_generator` capabilities.
    rng: Units,
    /// Units of generated entries: their preflight reads every dtype key.
    generated: Units,
}

impl Dependents {
    fn of(inv: &Inventory) -> Dependents {
        let hot = &inv.hot;
        let canonical = |s: Str| inv.canonical_str.get(s as usize).copied().unwrap_or(s);
        let mut deps = Dependents {
            by_dtype: HashMap::default(),
            by_requires: (0..hot.requires_sets.len()).map(|_| Units::default()).collect(),
            rng: Units::default(),
            generated: Units::default(),
        };
        // A group's members share everything the chain reads but the operator: one
        // member speaks for the group.
        let groups = (0..hot.groups.len()).filter_map(|g| hot.members(g).first().map(|&i| (g as u32, i)));
        let ungrouped = hot.ungrouped.iter().map(|&i| (NO_GROUP, i));
        for (group, i) in groups.chain(ungrouped) {
            let (h, item) = (&hot.items[i as usize], &inv.items[i as usize]);
            let add = |units: &mut Units| match group {
                NO_GROUP => units.items.push(i),
                g => units.groups.push(g),
            };
            let mut dtypes: Vec<Str> = h.d1.iter().map(|d| d.dt).collect();
            if h.rare & rare::D2 != 0 {
                dtypes.extend(item.d2.iter().map(|d| d.dt));
            }
            if h.rare & rare::FIXED != 0 {
                dtypes.extend(item.fixed.iter().map(|f| f.dt));
            }
            if h.rare & rare::GRADCHECK != 0 {
                dtypes.push(inv.s.float64);
            }
            let mut dtypes: Vec<Str> = dtypes.into_iter().map(canonical).collect();
            dtypes.sort_unstable();
            dtypes.dedup();
            for dt in dtypes {
                add(deps.by_dtype.entry(dt).or_default());
            }
            if let Some(units) = deps.by_requires.get_mut(h.requires as usize) {
                add(units);
            }
            if h.rare & rare::RNG != 0 {
                add(&mut deps.rng);
            }
            if h.rare & rare::GENERATED != 0 {
                add(&mut deps.generated);
            }
        }
        deps
    }
}

/// The units whose decisions can differ between `base` and `changed`, or `None` when the
/// difference is one a whole accounting must answer.
fn change_scope(inv: &Inventory, base: &ManifestFacts, changed: &ManifestFacts) -> Option<Scope> {
    // Exhaustive on purpose: a new field must be considered here.
    let ManifestFacts {
        supported_dtypes,
        capabilities,
        skip_ops,
        device_count,
        device_name,
        hardware,
        resource_limits,
        supported_container_formats,
        custom_container_decoders,
        semantic_level,
        has_custom_test_dirs,
        layout,
    } = base;
    let rest_equal = *skip_ops == changed.skip_ops
        && *device_count == changed.device_count
        && *device_name == changed.device_name
        && *hardware == changed.hardware
        && *resource_limits == changed.resource_limits
        && *supported_container_formats == changed.supported_container_formats
        && *custom_container_decoders == changed.custom_container_decoders
        && *semantic_level == changed.semantic_level
        && *has_custom_test_dirs == changed.has_custom_test_dirs
        && *layout == changed.layout;
    if !rest_equal {
        return None;
    }
    let hot = &inv.hot;
    let deps = hot.dependents.get_or_init(|| Dependents::of(inv));
    let mut touched: Vec<&Units> = Vec::new();

    let mut changed_caps: Vec<Str> = Vec::new();
    for name in outside_common_ends(capabilities, &changed.capabilities).map(|(k, _)| k.as_str()) {
        if base.capability(name) == changed.capability(name) {
            continue;
        }
        match name {
            // Read by the presence rules of many items: not worth tracking.
            "sparse" | "ieee754" => return None,
            "rng" | "device_generator" => touched.push(&deps.rng),
            _ => {}
        }
        changed_caps.extend(inv.lookup(name));
    }
    if !changed_caps.is_empty() {
        let canonical = |s: &Str| inv.canonical_str.get(*s as usize).copied().unwrap_or(*s);
        for (set, caps) in hot.requires_sets.iter().enumerate() {
            if caps.iter().any(|c| changed_caps.contains(&canonical(c))) {
                touched.push(&deps.by_requires[set]);
            }
        }
    }

    let mut pending_dtypes: Vec<Str> = Vec::new();
    for key in outside_common_ends(supported_dtypes, &changed.supported_dtypes).map(|(k, _)| k) {
        let name = match key {
            PyValue::Dtype(d) => canonical_dtype(d).unwrap_or(d),
            PyValue::Str(s) => s.as_str(),
            _ => continue,
        };
        if dtype_entry(base, name) == dtype_entry(changed, name) {
            continue;
        }
        if let Some(dt) = inv.lookup(name).filter(|dt| !pending_dtypes.contains(dt)) {
            pending_dtypes.push(dt);
            touched.extend(deps.by_dtype.get(&dt));
        }
    }
    if *supported_dtypes != changed.supported_dtypes {
        touched.push(&deps.generated);
    }

    // Two passes over more than half of the suite cost more than one whole accounting.
    let units: usize = touched.iter().map(|u| u.groups.len() + u.items.len()).sum();
    if units * 2 > hot.groups.len() + hot.ungrouped.len() {
        return None;
    }
    let mut scope =
        Scope { groups: Bits::new(hot.groups.len()), items: Bits::new(inv.items.len()), pending_dtypes };
    for units in touched {
        for &g in &units.groups {
            if scope.groups.get(g as usize) {
                continue;
            }
            scope.groups.set(g as usize);
            for &i in hot.members(g as usize) {
                scope.items.set(i as usize);
            }
        }
        for &i in &units.items {
            scope.items.set(i as usize);
        }
    }
    Some(scope)
}

/// The entries of two lists outside their common prefix and suffix: a key none of them
/// has keeps its (last-wins) value.
fn outside_common_ends<'x, T: PartialEq>(a: &'x [T], b: &'x [T]) -> impl Iterator<Item = &'x T> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    a[prefix..a.len() - suffix].iter().chain(&b[prefix..b.len() - suffix])
}
