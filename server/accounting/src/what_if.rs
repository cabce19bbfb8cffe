//! What-if questions on an accounting: the per-level counts of a manifest changed a little
//! (a dtype entry removed, a capability flipped), from the counts of the manifest as it is.
//!
//! A change to `supported_dtypes` or `capabilities` only changes the decisions of the
//! item groups and ungrouped items whose rule chain reads the entries that differ (and of
//! the placeholders and pending OpInfo records of those dtypes). Every generated entry's
//! collection preflight reads all the dtype keys, but its outcome is the same for all
//! entries with equal facts but the name (unless a regex-valued key matches names), so a
//! dtype change touches only the entries of the classes whose preflight outcome changes.
//! Those units are decided with the changed facts and the difference to their base counts
//! is applied to the base counts; the rest of the suite is not visited. The base counts of
//! the units come from deciding them again with the base facts ([`what_if_levels`], one
//! question) or from one whole accounting kept per unit ([`WhatIfs`], many questions on one
//! manifest: the inlay hints). Any other difference (skip_ops, hardware, the level, ...),
//! or a capability the presence rules read for many items (`sparse`, `ieee754`), falls
//! back to a whole accounting. The result equals [`crate::account`]'s counts for the
//! changed facts (`server/core/tests/what_if.rs` holds it to that on every entry of the
//! corpus manifests).

use crate::account::{account, dtype_entry, scoped_levels, with_context, Ctx, KeptCounts, LevelCounts, Scope};
use crate::bits::Bits;
use crate::engine::dependents::{Dependents, GeneratedClass, Units};
use crate::facts::{canonical_dtype, last_value, LevelSelection, ManifestFacts, PyValue};
use crate::inventory::StrId;
use crate::Inventory;

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
    let whole = || account(inv, changed, base.device, base.selection).levels;
    let Some(question) = Question::of(inv, base.facts, changed) else {
        return whole();
    };
    let counts = with_context(inv, base.facts, base.device, base.selection, None, |before| {
        with_context(inv, changed, base.device, base.selection, None, |after| {
            let classes = &inv.dependents().generated_classes;
            let (scope, units) = question.scope(inv, |k| preflight_filters(&classes[k], before), after);
            // Two passes over more than half of the suite cost more than one whole accounting.
            if units * 2 > inv.engine.hot.groups.len() + inv.engine.hot.ungrouped.len() {
                return None;
            }
            Some(applied(&base.levels, &scoped_levels(before, &scope), &scoped_levels(after, &scope)))
        })
    });
    counts.unwrap_or_else(whole)
}

/// Many what-if questions on one manifest (the inlay hints ask one per entry): the base
/// accounting is kept per unit, so a question decides only its own units, once.
pub struct WhatIfs<'i, 'f> {
    inv: &'i Inventory,
    facts: &'f ManifestFacts,
    device: &'f str,
    selection: LevelSelection,
    kept: &'f KeptCounts,
    /// Per generated-entry class: whether the base preflight filters it (`None`: by
    /// name); found on the first question that changes a dtype.
    class_filters: std::sync::OnceLock<Vec<Option<bool>>>,
}

impl<'i, 'f> WhatIfs<'i, 'f> {
    /// On the counts an accounting of the same facts, device and selection kept
    /// ([`crate::account_keeping_units`]): no accounting of the base at all.
    pub fn from_kept(
        inv: &'i Inventory,
        facts: &'f ManifestFacts,
        device: &'f str,
        selection: LevelSelection,
        kept: &'f KeptCounts,
    ) -> Self {
        WhatIfs { inv, facts, device, selection, kept, class_filters: std::sync::OnceLock::new() }
    }

    fn class_filters(&self) -> &[Option<bool>] {
        self.class_filters.get_or_init(|| {
            let (inv, deps) = (self.inv, self.inv.dependents());
            with_context(inv, self.facts, self.device, self.selection, Some(&self.kept.keys), |ctx| {
                deps.generated_classes.iter().map(|class| preflight_filters(class, ctx)).collect()
            })
        })
    }

    /// Per-level counts for `changed` facts on the base's device and selection.
    pub fn what_if(&self, changed: &ManifestFacts) -> [LevelCounts; 8] {
        let inv = self.inv;
        let Some(question) = Question::of(inv, self.facts, changed) else {
            return account(inv, changed, self.device, self.selection).levels;
        };
        let same_dtypes = changed.supported_dtypes == self.facts.supported_dtypes;
        let class_filters = if same_dtypes { &[][..] } else { self.class_filters() };
        let keys = same_dtypes.then_some(&self.kept.keys);
        with_context(inv, changed, self.device, self.selection, keys, |after| {
            let (scope, _) = question.scope(inv, |c| class_filters[c], after);
            applied(&self.kept.levels, &self.kept.units.levels_in(inv, &scope), &scoped_levels(after, &scope))
        })
    }
}

/// `base` with the counts of the re-decided units replaced: `before` by `after`.
fn applied(base: &[LevelCounts; 8], before: &[LevelCounts; 8], after: &[LevelCounts; 8]) -> [LevelCounts; 8] {
    std::array::from_fn(|l| {
        let (b, x, y) = (base[l], before[l], after[l]);
        LevelCounts {
            level: b.level,
            collected: b.collected + y.collected - x.collected,
            runnable: b.runnable + y.runnable - x.runnable,
            filtered: b.filtered + y.filtered - x.filtered,
        }
    })
}

/// Whether the preflight filters the entries of `class` under `ctx`'s facts (`None`: by name).
fn preflight_filters(class: &GeneratedClass, ctx: &mut Ctx) -> Option<bool> {
    ctx.generated_filters_by_facts(class.entry, class.masks.as_ref())
}

/// What a what-if question changes, before the generated entries are looked at.
struct Question<'d> {
    deps: &'d Dependents,
    touched: Vec<&'d Units>,
    pending_dtypes: Vec<StrId>,
    dtypes_differ: bool,
}

impl<'d> Question<'d> {
    /// The units whose decisions can differ between `base` and `changed`, or `None` when
    /// the difference is one a whole accounting must answer.
    fn of(inv: &'d Inventory, base: &ManifestFacts, changed: &ManifestFacts) -> Option<Question<'d>> {
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
            python,
            project_ledger,
            dtype_filter,
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
            && *layout == changed.layout
            && *python == changed.python
            && *project_ledger == changed.project_ledger
            && *dtype_filter == changed.dtype_filter;
        if !rest_equal {
            return None;
        }
        let hot = &inv.engine.hot;
        let deps = inv.dependents();
        let mut touched: Vec<&Units> = Vec::new();

        let mut changed_caps: Vec<StrId> = Vec::new();
        for name in changed_capabilities(capabilities, &changed.capabilities) {
            match name {
                // Read by the presence rules of many items: not worth tracking.
                "sparse" | "ieee754" => return None,
                "rng" | "device_generator" => touched.push(&deps.rng),
                _ => {}
            }
            changed_caps.extend(inv.lookup(name));
        }
        if !changed_caps.is_empty() {
            let canonical = |s: &StrId| inv.canonical_str.get(*s as usize).copied().unwrap_or(*s);
            for (set, caps) in hot.requires_sets.iter().enumerate() {
                if caps.iter().any(|c| changed_caps.contains(&canonical(c))) {
                    touched.push(&deps.by_requires[set]);
                }
            }
        }

        let mut pending_dtypes: Vec<StrId> = Vec::new();
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
        Some(Question { deps, touched, pending_dtypes, dtypes_differ: *supported_dtypes != changed.supported_dtypes })
    }

    /// The scope of the question, and how many units it holds. `base_filters` tells
    /// whether the base preflight filters the entries of a generated class; `after` is
    /// the context of the changed facts.
    fn scope(
        self,
        inv: &Inventory,
        mut base_filters: impl FnMut(usize) -> Option<bool>,
        after: &mut Ctx,
    ) -> (Scope<'d>, usize) {
        let Question { deps, mut touched, pending_dtypes, dtypes_differ } = self;
        if dtypes_differ {
            for (k, class) in deps.generated_classes.iter().enumerate() {
                let before = base_filters(k);
                if before.is_none() || before != preflight_filters(class, after) {
                    touched.push(&class.units);
                }
            }
        }
        let hot = &inv.engine.hot;
        let pending = pending_dtypes
            .iter()
            .map(|&dt| (dt, deps.pending_by_dtype.get(&dt).map(Vec::as_slice).unwrap_or_default()))
            .collect();
        let mut scope = Scope { groups: Bits::new(hot.groups.len()), items: Bits::new(inv.items.len()), pending };
        let mut count = 0;
        for units in touched {
            for &g in &units.groups {
                if scope.groups.get(g as usize) {
                    continue;
                }
                count += 1;
                scope.groups.set(g as usize);
                for &i in hot.members(g as usize) {
                    scope.items.set(i as usize);
                }
            }
            for &i in &units.items {
                if !scope.items.get(i as usize) {
                    count += 1;
                    scope.items.set(i as usize);
                }
            }
        }
        (scope, count)
    }
}

/// The capability names whose (last-wins) values differ between two lists.
fn changed_capabilities<'x>(a: &'x [(String, PyValue)], b: &'x [(String, PyValue)]) -> Vec<&'x str> {
    let mut names: Vec<&str> = outside_common_ends(a, b).map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    if names.len() <= 8 {
        names.retain(|name| last_value(a, name) != last_value(b, name));
        return names;
    }
    // An entry moved to the end (set again) puts every entry outside the common ends:
    // compare the two lists as sorted maps instead of looking each name up in both.
    let as_map = |pairs: &'x [(String, PyValue)]| {
        let mut map: Vec<(&'x str, usize, &'x PyValue)> =
            pairs.iter().enumerate().map(|(i, (k, v))| (k.as_str(), usize::MAX - i, v)).collect();
        map.sort_unstable_by(|x, y| (x.0, x.1).cmp(&(y.0, y.1)));
        map.dedup_by(|later, first| later.0 == first.0);
        map
    };
    let (a, b) = (as_map(a), as_map(b));
    names.retain(|name| {
        let value =
            |map: &[(&str, usize, &'x PyValue)]| map.binary_search_by(|e| e.0.cmp(name)).ok().map(|at| map[at].2);
        value(&a) != value(&b)
    });
    names
}

/// The entries of two lists outside their common prefix and suffix: a key none of them
/// has keeps its (last-wins) value.
fn outside_common_ends<'x, T: PartialEq>(a: &'x [T], b: &'x [T]) -> impl Iterator<Item = &'x T> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..].iter().rev().zip(b[prefix..].iter().rev()).take_while(|(x, y)| x == y).count();
    a[prefix..a.len() - suffix].iter().chain(&b[prefix..b.len() - suffix])
}
