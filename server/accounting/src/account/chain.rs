//! The rule chain of `pytest_collection_modifyitems` for one item.

use super::context::first_numeric;
use super::context::Ctx;
use super::context::Requires;
use super::phases::present;
use super::phases::Outcome;
use super::preflight::generated_preflight;
use super::result::Detail;
use super::result::LabelKind;
use super::result::NodeRef;
use crate::engine::hot::HotItem;
use crate::facts::PyValue;
use crate::inventory::rare;
use crate::inventory::ContractMode;
use crate::inventory::DevRule;
use crate::inventory::DtypeParam;
use crate::inventory::Item;
use crate::inventory::Reason;
use crate::inventory::ReasonDetail;
use crate::inventory::StrId;

/// Presence, then the rule chain: `None` when the item is not collected.
pub(super) fn evaluate(ctx: &mut Ctx, node: NodeRef, hot: &HotItem, item: &Item) -> Option<Outcome> {
    if present(ctx, hot) {
        Some(chain(ctx, node, hot, item))
    } else {
        None
    }
}

pub(super) fn contract_outcome(c: ReasonDetail) -> (Reason, Detail, bool) {
    (c.reason, Detail::Text(c.detail), false)
}

pub(super) fn label_kind(p: DtypeParam) -> LabelKind {
    match p {
        DtypeParam::Dtype | DtypeParam::DtypeStr => LabelKind::Plain,
        DtypeParam::Autocast => LabelKind::Autocast,
        DtypeParam::Src => LabelKind::Src,
        DtypeParam::Dst => LabelKind::Dst,
    }
}

pub(super) fn dev_fact(ctx: &Ctx, item: &Item, rule: DevRule) -> Option<ReasonDetail> {
    item.dev_facts(ctx.class).iter().find(|f| f.rule == rule).map(|f| f.rd)
}

pub(super) fn dev_outcome(ctx: &Ctx, rd: ReasonDetail) -> (Reason, Detail, bool) {
    let detail = if ctx.class_is_custom { Detail::DeviceText(rd.detail) } else { Detail::Text(rd.detail) };
    (rd.reason, detail, false)
}

/// The rule chain of `pytest_collection_modifyitems` for one item, without the
/// semantic-level rule (applied by the caller). `None`: no reason.
/// Reads `hot` for every item and the full `item` only behind its rare flags.
pub(super) fn chain(ctx: &mut Ctx, node: NodeRef, hot: &HotItem, item: &Item) -> Outcome {
    let op = hot.op;
    let mut skip: Outcome = None;
    let flags = hot.rare;
    let has_dev = hot.has_dev(ctx.class);
    // 0. Backend gate / path-shape expectation.
    if has_dev {
        if let Some(rd) = dev_fact(ctx, item, DevRule::Gate) {
            skip = Some(dev_outcome(ctx, rd));
        }
    }
    // 1. dtype / dtype_str / autocast_dtype: runs unconditionally.
    if let Some(d1) = &hot.d1 {
        match ctx.disposition(d1.dt, op, label_kind(d1.param)) {
            Some((reason, detail)) => skip = Some((reason, detail, false)),
            None => match d1.mode {
                ContractMode::None => {}
                ContractMode::Set => skip = d1.contract.map(contract_outcome),
                ContractMode::Fail => {
                    if let Some(c) = d1.contract {
                        skip = Some(contract_outcome(c));
                    }
                }
            },
        }
    }
    if skip.is_some() {
        return skip;
    }
    if flags & (rare::D2 | rare::FIXED) != 0 {
        if let Some(x) = rare_dtype_gates(ctx, op, flags, item) {
            return Some(x);
        }
    }
    // 4. Capabilities.
    if hot.requires != 0 {
        match ctx.requires(hot.requires) {
            Requires::Met => {}
            Requires::Missing(mask) => {
                return Some((ctx.reasons.capability, Detail::MissingCapabilities { node, mask }, false))
            }
            Requires::DeviceCount => return Some((ctx.reasons.device_count, Detail::DeviceCount, false)),
        }
    }
    // 5. skip_ops.
    if let Some(op) = op {
        if ctx.skip_op(op) {
            return Some((ctx.reasons.op_excluded, Detail::OpExcluded(op), false));
        }
    }
    if flags != 0 || has_dev {
        let outcome = rare_fact_rules(ctx, node, hot, item, has_dev);
        if outcome.is_some() {
            return outcome;
        }
    }
    project_ledger_crash(ctx, node, hot)
}

/// Step 14 for the project's own ledger (its tests are decided item by item).
fn project_ledger_crash(ctx: &Ctx, node: NodeRef, hot: &HotItem) -> Outcome {
    let (Some(crashes), NodeRef::Item(i)) = (&ctx.project_crashes, node) else { return None };
    (crashes.get(i as usize) && ctx.selection.contains(hot.level)).then_some((
        ctx.reasons.known_crash,
        Detail::KnownCrash,
        false,
    ))
}

/// Steps 2-3 of the chain; kept out of line so that the common item never
/// touches the full `Item`.
#[inline(never)]
pub(super) fn rare_dtype_gates(ctx: &mut Ctx, op: Option<StrId>, flags: u16, item: &Item) -> Outcome {
    // 2. src_dtype / dst_dtype.
    for d in if flags & rare::D2 != 0 { &item.d2[..] } else { &[] } {
        if let Some((reason, detail)) = ctx.disposition(d.dt, op, label_kind(d.param)) {
            return Some((reason, detail, false));
        }
        if let Some(c) = d.contract {
            return Some(contract_outcome(c));
        }
    }
    // 3. Fixed dtype contract gates.
    for g in if flags & rare::FIXED != 0 { &item.fixed[..] } else { &[] } {
        let subject = op.or(Some(g.surface));
        if let Some((reason, detail)) = ctx.disposition(g.dt, subject, LabelKind::Fixed) {
            return Some((reason, detail, false));
        }
        if let Some(c) = g.contract {
            return Some(contract_outcome(c));
        }
    }
    None
}

/// Steps 5b-14 of the chain (after `skip_ops`): the rules on facts only a few items have,
/// each behind its rare flag or the item's device facts.
#[inline(never)]
pub(super) fn rare_fact_rules(ctx: &mut Ctx, node: NodeRef, hot: &HotItem, item: &Item, has_dev: bool) -> Outcome {
    let op = hot.op;
    let flags = hot.rare;
    if let Some(outcome) = resource_rules(ctx, flags, item) {
        return Some(outcome);
    }
    // 5b.4 Generated collection preflight.
    if let Some(g) = if flags & rare::GENERATED != 0 { item.generated } else { None } {
        let outcome = memoised_preflight(ctx, g);
        if outcome.is_some() {
            return outcome;
        }
    }
    // 6-8. Device rules.
    if has_dev {
        for rule in [DevRule::Cpu, DevRule::Module, DevRule::SetDevice] {
            if let Some(rd) = dev_fact(ctx, item, rule) {
                return Some(dev_outcome(ctx, rd));
            }
        }
    }
    // 9. OOM recovery.
    if flags & rare::OOM != 0 && !ctx.facts.hardware_value("oom_recoverable").map(PyValue::truthy).unwrap_or(true) {
        return Some((ctx.reasons.oom, Detail::OomNotRecoverable, false));
    }
    // 10. float64 for gradcheck.
    if let Some(gc) = if flags & rare::GRADCHECK != 0 { item.gradcheck } else { None } {
        if let Some((reason, detail)) = ctx.disposition(ctx.inv.well_known.float64, op, LabelKind::Gradcheck) {
            return Some((reason, detail, false));
        }
        if let Some(c) = gc {
            return Some(contract_outcome(c));
        }
    }
    // 11. MPS index_reduce NaN.
    if let Some(rd) = if has_dev { dev_fact(ctx, item, DevRule::MpsBug) } else { None } {
        return Some(dev_outcome(ctx, rd));
    }
    // 12. Empty path-shape selection; 12b. OpInfo placeholder.
    if flags & rare::PATH_SHAPE != 0 {
        return Some((ctx.reasons.path_shape, Detail::PathShapeEmpty, false));
    }
    if flags & rare::DUMMY != 0 {
        return Some((ctx.reasons.opinfo_empty, Detail::OpinfoEmpty, false));
    }
    // 13 (semantic level) is applied by the caller; 14. known backend crash
    // comes after it and only for items the level keeps.
    let project_decides = match (&ctx.project_decided, node) {
        (Some(decided), NodeRef::Item(i)) => decided.get(i as usize),
        _ => false,
    };
    if has_dev && !project_decides && !ctx.facts.layout.rooted_at_package && ctx.selection.contains(hot.level) {
        if let Some(rd) = dev_fact(ctx, item, DevRule::Crash) {
            return Some(dev_outcome(ctx, rd));
        }
    }
    None
}

/// Steps 5b.1-5b.3: container formats, large allocations, manual_rng entries.
fn resource_rules(ctx: &mut Ctx, flags: u16, item: &Item) -> Outcome {
    // 5b.1 Quantized container formats.
    if let Some(p) = if flags & rare::PACKING != 0 { item.packing } else { None } {
        let name = ctx.text(p);
        if !ctx.facts.container_format(name).map(PyValue::truthy).unwrap_or(false) {
            return Some((ctx.reasons.container, Detail::ContainerFormat(p), false));
        }
        if item.decoder && !ctx.facts.container_decoder(name).map(PyValue::truthy).unwrap_or(false) {
            return Some((ctx.reasons.decoder, Detail::ContainerDecoder(p), false));
        }
    }
    // 5b.2 Large allocations.
    if flags & rare::LARGE != 0 && item.large {
        if let Some(v) = first_numeric(ctx.facts.resource_limit("max_tensor_size_mb"), None) {
            if v < 2048.0 {
                return Some((ctx.reasons.resource, Detail::MaxTensorSize(v), false));
            }
        }
        let hw = ctx.facts.hardware_value("device_memory_gb");
        let auto = matches!(hw, Some(PyValue::Str(s)) if s == "auto");
        let mem = if auto {
            // Replaced by detected memory per device; collect-only falls back to 4 GB.
            if ctx.device_count >= 1.0 {
                Some(4.0)
            } else {
                Some(2.0)
            }
        } else {
            first_numeric(hw, Some(2.0))
        };
        if let Some(m) = mem {
            if m < 6.0 {
                return Some((ctx.reasons.resource, Detail::DeviceMemory(m), auto && !ctx.class_is_cpu));
            }
        }
    }
    // 5b.3 Generated manual_rng entries.
    if flags & rare::RNG != 0 {
        if !ctx.cap("rng").map(PyValue::truthy).unwrap_or(true) {
            return Some((ctx.reasons.capability, Detail::Capability("rng"), false));
        }
        if item.rng == 2 && !ctx.cap("device_generator").map(PyValue::truthy).unwrap_or(true) {
            return Some((ctx.reasons.capability, Detail::Capability("device_generator"), false));
        }
    }
    None
}

/// Step 5b.4's outcome for generated entry `g`, decided once per accounting.
fn memoised_preflight(ctx: &mut Ctx, g: u32) -> Outcome {
    match ctx.generated_memo.get(g as usize) {
        Some(&k) if k > 0 => ctx.generated_outcomes[k as usize - 1],
        _ => {
            let outcome = generated_preflight(ctx, g);
            ctx.generated_outcomes.push(outcome);
            if let Some(slot) = ctx.generated_memo.get_mut(g as usize) {
                *slot = ctx.generated_outcomes.len() as u32;
            }
            outcome
        }
    }
}
