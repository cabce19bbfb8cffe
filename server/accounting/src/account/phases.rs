//! The phases of an accounting: empty generated parameter sets (placeholders), the item
//! groups decided once, the walk over the items decided one by one, pending OpInfo records.

use super::chain::chain;
use super::chain::evaluate;
use super::context::Ctx;
use super::context::Filter;
use super::context::Ieee754;
use super::placeholder;
use super::placeholder_hot;
use super::result::Detail;
use super::result::LabelKind;
use super::result::NodeRef;
use super::result::PlaceholderKind;
use super::result::Record;
use super::tally::item_position;
use super::tally::Tally;
use super::Grouping;
use super::Scope;
use crate::bits::Bits;
use crate::engine::dependents::PendingRef;
use crate::engine::hot::HotItem;
use crate::engine::hot::Presence;
use crate::engine::hot::NO_GROUP;
use crate::inventory::Reason;
use crate::inventory::StrId;
use crate::Inventory;

/// Phase 1. Manifest-generated parameter sets: which ones become empty (and get pytest's
/// placeholder item), decided from the tables, not the items. Returns (item index before
/// which the placeholder is collected, kind), at most four.
pub(super) fn empty_parameter_sets(ctx: &mut Ctx) -> Vec<(usize, PlaceholderKind)> {
    let inv = ctx.inv;
    let mut any_fwd = false;
    for f in &inv.forward {
        if any_fwd {
            break;
        }
        if f.jiterator || ctx.skip_op(f.op) || (f.sparse && !ctx.sparse_ok()) {
            continue;
        }
        for &(dt, _, contract) in &f.dtypes {
            if contract.is_none() && ctx.allowed(dt, Some(f.op)) {
                any_fwd = true;
                break;
            }
        }
    }
    let mut any_bwd = false;
    for b in &inv.backward {
        if any_bwd {
            break;
        }
        if b.jiterator || !b.eligible || ctx.skip_op(b.op) || (b.sparse && !ctx.sparse_ok()) {
            continue;
        }
        for &(dt, contract) in &b.dtypes {
            if contract.is_none() && ctx.allowed(dt, Some(b.op)) {
                any_bwd = true;
                break;
            }
        }
    }
    let mut any_err = false;
    for &op in &inv.error_ops {
        if !ctx.skip_op(op) {
            any_err = true;
            break;
        }
    }
    let mut any_fe = false;
    for &(entry, dt) in &inv.foreach_pairs {
        if ctx.allowed(dt, Some(entry)) {
            any_fe = true;
            break;
        }
    }
    let (has_fwd, has_bwd, has_err, has_fe) = (
        inv.function_first.contains_key(&inv.well_known.fwd_fn),
        inv.function_first.contains_key(&inv.well_known.bwd_fn),
        inv.function_first.contains_key(&inv.well_known.err_fn),
        !inv.foreach_pairs.is_empty(),
    );
    // At most four placeholders: (item index before which it is collected, kind).
    let mut placeholder_at: Vec<(usize, PlaceholderKind)> = Vec::new();
    let mut add_placeholder = |func: StrId, kind: PlaceholderKind| {
        if let Some(&i) = inv.function_first.get(&func) {
            placeholder_at.push((i, kind));
        }
    };
    if has_bwd && !any_bwd {
        add_placeholder(inv.well_known.bwd_fn, PlaceholderKind::OpinfoBackward);
    }
    if has_err && !any_err {
        add_placeholder(inv.well_known.err_fn, PlaceholderKind::OpinfoErrors);
    }
    if has_fwd && !any_fwd {
        add_placeholder(inv.well_known.fwd_fn, PlaceholderKind::OpinfoForward);
    }
    if has_fe && !any_fe {
        add_placeholder(inv.well_known.foreach_fn, PlaceholderKind::Foreach);
    }

    placeholder_at
}

/// What phase 2 decided per item group before visiting items.
pub(super) struct GroupPass {
    /// Items decided one by one because their operator is in `skip_ops`.
    pub(super) by_item: Bits,
    /// Items the walk visits: by-item, ungrouped and op-dependent group members.
    pub(super) visited: Bits,
    pub(super) group_decision: Vec<Decision>,
    pub(super) group_outcomes: Vec<(Reason, Detail, bool)>,
    /// Whether some dtype key is a regex (generated entry names are then matched).
    pub(super) regex_keys: bool,
}

/// Phase 2a. Each group is decided once where the operator does not matter; its items are
/// counted in bulk and not visited (their records are derived on demand).
pub(super) fn decide_groups(ctx: &mut Ctx, tally: &mut Tally, grouping: Grouping, scope: Option<&Scope>) -> GroupPass {
    let (inv, facts) = (ctx.inv, ctx.facts);
    let in_scope = |i: usize| scope.is_none_or(|s| s.items.get(i));
    // Items whose operator is in skip_ops are decided one by one.
    let mut by_item = Bits::new(inv.items.len());
    for id in ctx.skip_ops.iter() {
        for &i in inv.engine.hot.items_by_op.get(&(id as StrId)).into_iter().flatten() {
            if in_scope(i as usize) {
                by_item.set(i as usize);
            }
        }
    }
    // So are the tests the project's ledger records.
    if let Some(crashes) = &ctx.project_crashes {
        for i in crashes.iter().filter(|&i| in_scope(i)) {
            by_item.set(i);
        }
    }
    let ieee754_patterns = matches!(ctx.ieee754, Ieee754::Patterns(_));
    let skip_ops_used = !facts.skip_ops.is_empty() || ctx.project_crashes.is_some();
    let regex_keys = (0..ctx.keys.effective.len()).any(|k| {
        let dt = ctx.keys.effective[k];
        matches!(ctx.filter(dt), Filter::Regex(_))
    });
    let mut visited = by_item.clone();
    for &i in inv.engine.hot.ungrouped.iter().filter(|&&i| in_scope(i as usize)) {
        visited.set(i as usize);
    }
    let mut group_decision = Vec::with_capacity(inv.engine.hot.groups.len());
    let mut group_outcomes: Vec<(Reason, Detail, bool)> = Vec::new();
    for (g, info) in inv.engine.hot.groups.iter().enumerate() {
        if scope.is_some_and(|s| !s.groups.get(g)) {
            group_decision.push(Decision::Absent);
            continue;
        }
        let members = inv.engine.hot.members(g);
        // A generated entry's name is matched by regex-valued dtype keys.
        let by_name = info.generated_by_name && regex_keys;
        let op_dependent = by_name
            || info.dt.is_some_and(|dt| matches!(ctx.filter(dt), Filter::Regex(_)))
            || (info.ieee754_by_op && ieee754_patterns);
        let representative = members.iter().map(|&i| i as usize).find(|&i| !by_item.get(i));
        let Some(rep) = representative.filter(|_| grouping == Grouping::Groups && !op_dependent) else {
            group_decision.push(if op_dependent { Decision::ByVariant } else { Decision::ByItem });
            for &i in members {
                visited.set(i as usize);
            }
            continue;
        };
        let hot = &inv.engine.hot.items[rep];
        let decision = decide(evaluate(ctx, NodeRef::Item(rep as u32), hot, &inv.items[rep]), &mut group_outcomes);
        group_decision.push(decision);
        let n =
            if skip_ops_used { members.iter().filter(|&&i| !by_item.get(i as usize)).count() } else { members.len() };
        match decision {
            Decision::Runs => tally.runnable(ctx, hot.level, item_position(rep), n),
            Decision::Filtered(k) => {
                tally.filtered_in_bulk(ctx, hot.level, group_outcomes[k as usize], item_position(rep), n)
            }
            Decision::Absent | Decision::ByItem | Decision::ByVariant => {}
        }
        if let (Some(units), Decision::Runs | Decision::Filtered(_)) = (&mut tally.units, decision) {
            units.group(g, decision != Decision::Runs, n);
        }
    }
    GroupPass { by_item, visited, group_decision, group_outcomes, regex_keys }
}

/// Phase 2b. The rule chain over the visited items in collection order, placeholders
/// before the item they are collected at; op-dependent groups get one decision per
/// (group, regex hit, ieee754 hit, name hit).
pub(super) fn walk_items(
    ctx: &mut Ctx,
    tally: &mut Tally,
    pass: &mut GroupPass,
    placeholder_at: &[(usize, PlaceholderKind)],
) {
    let inv = ctx.inv;
    let GroupPass { by_item, visited, group_decision, group_outcomes, regex_keys } = pass;
    let regex_keys = *regex_keys;
    let mut placeholders = placeholder_at.iter().copied().peekable();
    let mut add_placeholders_before = |ctx: &mut Ctx, tally: &mut Tally, i: usize| {
        while let Some((at, kind)) = placeholders.next_if(|(at, _)| *at <= i) {
            let node = NodeRef::Placeholder(kind);
            let outcome = chain(ctx, node, placeholder_hot(inv, kind), placeholder(inv, kind));
            tally.add(ctx, at, node, placeholder_hot(inv, kind).level, outcome);
        }
    };
    // Per group: 0, or k for `variant_decision[k - 1]` (few groups are op-dependent).
    let mut variant_slot: Vec<u32> = vec![0; inv.engine.hot.groups.len()];
    let mut variant_decision: Vec<[Option<Decision>; 8]> = Vec::new();
    for i in visited.iter() {
        add_placeholders_before(ctx, tally, i);
        let (node, hot) = (NodeRef::Item(i as u32), &inv.engine.hot.items[i]);
        let g = inv.engine.hot.group_of[i] as usize;
        let mut decision = if g != NO_GROUP as usize && !by_item.get(i) { group_decision[g] } else { Decision::ByItem };
        if decision == Decision::ByVariant {
            let info = inv.engine.hot.groups[g];
            let regex_hit = info.dt.is_some_and(|dt| ctx.allowed(dt, hot.op));
            let ieee754_hit = info.ieee754_by_op && hot.op.is_some_and(|op| ctx.ieee754(op));
            // The generated preflight asks whether any dtype key lets the entry's name in.
            let name_hit = info.generated_by_name && regex_keys && {
                let name = inv.items[i].generated.and_then(|g| inv.generated.get(g as usize)).map(|e| e.name);
                (0..ctx.keys.effective.len()).any(|k| {
                    let dt = ctx.keys.effective[k];
                    ctx.allowed(dt, name)
                })
            };
            let variant = usize::from(regex_hit) | usize::from(ieee754_hit) << 1 | usize::from(name_hit) << 2;
            if variant_slot[g] == 0 {
                variant_decision.push([None; 8]);
                variant_slot[g] = variant_decision.len() as u32;
            }
            let k = variant_slot[g] as usize - 1;
            decision = match variant_decision[k][variant] {
                Some(d) => d,
                None => {
                    let d = decide(evaluate(ctx, node, hot, &inv.items[i]), group_outcomes);
                    variant_decision[k][variant] = Some(d);
                    d
                }
            };
        }
        match decision {
            Decision::Absent => {}
            Decision::Runs => tally.add(ctx, i, node, hot.level, None),
            Decision::Filtered(k) => {
                tally.add(ctx, i, node, hot.level, Some(retarget(inv, group_outcomes[k as usize], i)));
            }
            Decision::ByItem | Decision::ByVariant => {
                if let Some(outcome) = evaluate(ctx, node, hot, &inv.items[i]) {
                    tally.add(ctx, i, node, hot.level, outcome);
                }
            }
        }
    }
    add_placeholders_before(ctx, tally, usize::MAX);
}

/// Phase 3. Pending OpInfo records: backward module first (collected first), then forward.
/// A scope names its records (`Scope::pending`), so a what-if question does not walk the tables.
pub(super) fn pending_opinfo_records(ctx: &mut Ctx, tally: &mut Tally, scope: Option<&Scope>) {
    let inv = ctx.inv;
    if let Some(scope) = scope {
        for &(dt, records) in &scope.pending {
            // A dtype no key names is refused as not listed, which records nothing.
            if ctx.filter(dt) == Filter::NotListed {
                continue;
            }
            for &record in records {
                match record {
                    PendingRef::Backward { op, dtype } => backward_record(ctx, tally, op as usize, dtype as usize),
                    PendingRef::Forward { op, dtype } => forward_records(ctx, tally, op as usize, dtype as usize),
                }
            }
        }
        return;
    }
    for op in 0..inv.backward.len() {
        for dtype in 0..inv.backward[op].dtypes.len() {
            backward_record(ctx, tally, op, dtype);
        }
    }
    for op in 0..inv.forward.len() {
        for dtype in 0..inv.forward[op].dtypes.len() {
            forward_records(ctx, tally, op, dtype);
        }
    }
}

pub(super) fn backward_record(ctx: &mut Ctx, tally: &mut Tally, op: usize, dtype: usize) {
    let inv = ctx.inv;
    let b = &inv.backward[op];
    if b.jiterator || !b.eligible || ctx.skip_op(b.op) || (b.sparse && !ctx.sparse_ok()) {
        return;
    }
    let (dt, contract) = b.dtypes[dtype];
    let rec = match ctx.disposition(dt, Some(b.op), LabelKind::Plain) {
        None => contract.map(|c| (c.reason, Detail::Text(c.detail))),
        Some((reason, detail)) if reason != ctx.reasons.not_listed => Some((reason, detail)),
        Some(_) => None,
    };
    if let Some((reason, detail)) = rec {
        tally.add_pending(
            inv,
            Record {
                node: NodeRef::Pending { backward: true, cond: inv.well_known.clean, op: b.op, dt },
                reason,
                detail,
                level: inv.opinfo_level,
                deselected: false,
                live_device_dependent: false,
            },
        );
    }
}

pub(super) fn forward_records(ctx: &mut Ctx, tally: &mut Tally, op: usize, dtype: usize) {
    let inv = ctx.inv;
    let f = &inv.forward[op];
    if f.jiterator || ctx.skip_op(f.op) || (f.sparse && !ctx.sparse_ok()) {
        return;
    }
    let (dt, fc, contract) = f.dtypes[dtype];
    let mut push = |cond: StrId, reason: Reason, detail: Detail| {
        tally.add_pending(
            inv,
            Record {
                node: NodeRef::Pending { backward: false, cond, op: f.op, dt },
                reason,
                detail,
                level: inv.opinfo_level,
                deselected: false,
                live_device_dependent: false,
            },
        );
    };
    match ctx.disposition(dt, Some(f.op), LabelKind::Plain) {
        None => {
            if let Some(c) = contract {
                push(inv.well_known.clean, c.reason, Detail::Text(c.detail));
            }
        }
        Some((reason, detail)) if reason != ctx.reasons.not_listed => {
            let ieee = fc && f.ieee_ok && ctx.ieee754(f.op);
            push(inv.well_known.clean, reason, detail);
            if ieee {
                push(inv.well_known.has_nan, reason, detail);
                push(inv.well_known.has_inf, reason, detail);
            }
        }
        Some(_) => {}
    }
}

/// Whether an item exists for this manifest: items of manifest-generated
/// parameter sets exist only where the manifest generates them.
pub(super) fn present(ctx: &mut Ctx, hot: &HotItem) -> bool {
    let inv = ctx.inv;
    let (Some(op), dt) = (hot.op, hot.d1.map(|d| d.dt)) else {
        return matches!(hot.presence, Presence::Always);
    };
    match hot.presence {
        Presence::Always => true,
        Presence::Never => false,
        Presence::Errors => !ctx.skip_op(op),
        Presence::Foreach => dt.is_some_and(|dt| ctx.allowed(dt, Some(op))),
        Presence::Backward => {
            let sparse_op = inv.backward.get(hot.table as usize).is_some_and(|b| b.sparse);
            !ctx.skip_op(op) && (!sparse_op || ctx.sparse_ok()) && dt.is_some_and(|dt| ctx.allowed(dt, Some(op)))
        }
        Presence::Forward { clean } => {
            let Some(dt) = dt else { return false };
            let f = inv.forward.get(hot.table as usize);
            let sparse_op = f.is_some_and(|f| f.sparse);
            !ctx.skip_op(op)
                && (!sparse_op || ctx.sparse_ok())
                && ctx.allowed(dt, Some(op))
                && (clean || (ctx.is_fc(dt) && f.is_some_and(|f| f.ieee_ok) && ctx.ieee754(op)))
        }
    }
}

pub(super) type Outcome = Option<(Reason, Detail, bool)>;

/// How an item is decided. Small on purpose: copying whole outcomes per item
/// through the stack cost more than deciding them.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Decision {
    /// Not collected.
    Absent,
    /// No reason: runs if its level is selected.
    Runs,
    /// Filtered with the group outcome at this index.
    Filtered(u32),
    /// Decided on its own.
    ByItem,
    /// The group's outcome depends on the operator (or generated entry name)
    /// only through whether the dtype regex, the ieee754 patterns and any dtype
    /// key match it.
    ByVariant,
}

/// A group's outcome for item `i`: its details name the item, its operator and its
/// generated entry instead of those of the item it was decided on.
pub(super) fn retarget(
    inv: &Inventory,
    (reason, mut detail, live): (Reason, Detail, bool),
    i: usize,
) -> (Reason, Detail, bool) {
    match &mut detail {
        Detail::MissingCapabilities { node, .. } => *node = NodeRef::Item(i as u32),
        Detail::RegexFiltered { op, .. } => *op = inv.engine.hot.items[i].op,
        Detail::GeneratedNoDtypes(name) | Detail::GeneratedCpuContract(name) | Detail::GeneratedShape(name) => {
            if let Some(entry) = inv.items[i].generated.and_then(|g| inv.generated.get(g as usize)) {
                *name = entry.name;
            }
        }
        _ => {}
    }
    (reason, detail, live)
}

/// The decision for an evaluated item; a filtered outcome is kept in `outcomes`.
pub(super) fn decide(evaluated: Option<Outcome>, outcomes: &mut Vec<(Reason, Detail, bool)>) -> Decision {
    match evaluated {
        None => Decision::Absent,
        Some(None) => Decision::Runs,
        Some(Some(o)) => {
            outcomes.push(o);
            Decision::Filtered(outcomes.len() as u32 - 1)
        }
    }
}
