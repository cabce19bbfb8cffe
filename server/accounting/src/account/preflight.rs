//! The collection preflight of generated entries (`_generated_collection_preflight_skip_for_item`).

use super::context::Ctx;
use super::context::Filter;
use super::phases::Outcome;
use super::result::Detail;
use crate::engine::dependents::PreflightMasks;
use crate::facts::canonical_dtype;
use crate::facts::PyValue;
use crate::inventory::DtCode;
use crate::inventory::Generated;
use crate::inventory::OracleOutcome;
use crate::inventory::StrId;
use crate::Inventory;

/// `_generated_collection_preflight_skip_for_item` + `generated_collection_skip_for_entry`.
pub(super) fn generated_preflight(ctx: &mut Ctx, g: u32) -> Outcome {
    let inv = ctx.inv;
    let gen = &inv.generated[g as usize];
    let name = gen.name;
    // (a) non-oracle runners: some manifest key must be an allowed dtype for the entry.
    if !gen.oracle_runner {
        let mut any = false;
        for k in 0..ctx.keys.effective.len() {
            let dt = ctx.keys.effective[k];
            if ctx.allowed(dt, Some(name)) {
                any = true;
                break;
            }
        }
        if !any {
            return Some((ctx.reasons.gen_no_dtypes, Detail::GeneratedNoDtypes(name), false));
        }
    }
    preflight_after_keys(ctx, gen)
}

impl Ctx<'_, '_> {
    /// Whether the generated preflight filters entry `g`, where that does not hang on the
    /// entry's name: then it is the same for every entry with equal facts but the name
    /// (`hot::GeneratedKey`). `None` when a regex-valued dtype key decides it by name.
    /// With `masks` (the entry's [`PreflightMasks`]) the base-item checks are bit operations.
    pub(crate) fn generated_filters_by_facts(&mut self, g: u32, masks: Option<&PreflightMasks>) -> Option<bool> {
        let inv = self.inv;
        let gen = &inv.generated[g as usize];
        if !gen.oracle_runner {
            match self.keys_allow_every_name() {
                Some(true) => {}
                Some(false) => return Some(true),
                None => return None,
            }
        }
        let Some(m) = masks.filter(|_| gen.early.is_none() && !gen.oracle_runner) else {
            return Some(preflight_after_keys(self, gen).is_some());
        };
        let base = self.keys.base_mask;
        if base == 0 || gen.late.is_some() {
            return Some(true);
        }
        if m.error & base != 0 {
            return Some(false);
        }
        let wanted = base & (if m.allowed & base != 0 { m.allowed } else { m.probe_ok });
        if wanted == 0 {
            return Some(true);
        }
        if !gen.post_contract {
            return Some(false);
        }
        let Some(shape) = &m.shape else { return Some(false) };
        let ieee = shape.ieee_applies && self.ieee754(shape.base);
        Some(wanted & (shape.clean | if ieee { shape.ieee } else { 0 }) == 0)
    }

    /// The preflight's (a) for every name at once: `Some(true)` when a dtype key lets any
    /// name in, `Some(false)` when none can, `None` when regex-valued keys decide by name.
    pub(super) fn keys_allow_every_name(&mut self) -> Option<bool> {
        if let Some(known) = self.keys_allow {
            return known;
        }
        let known = self.keys_allow_every_name_uncached();
        self.keys_allow = Some(known);
        known
    }

    pub(super) fn keys_allow_every_name_uncached(&mut self) -> Option<bool> {
        let mut by_name = false;
        for k in 0..self.keys.effective.len() {
            match self.filter(self.keys.effective[k]) {
                Filter::True => return Some(true),
                Filter::Regex(_) => by_name = true,
                Filter::NotListed | Filter::False | Filter::Unsupported(_) => {}
            }
        }
        if by_name {
            None
        } else {
            Some(false)
        }
    }
}

/// The generated preflight after (a), the check of the dtype keys against the name.
pub(super) fn preflight_after_keys(ctx: &mut Ctx, gen: &Generated) -> Outcome {
    let name = gen.name;
    if let Some(rd) = gen.early {
        return Some((rd.reason, Detail::Text(rd.detail), false));
    }
    if gen.oracle_runner {
        let out =
            gen.oracle.iter().find(|(c, _)| *c == ctx.class).map(|(_, o)| o.clone()).unwrap_or(OracleOutcome::Runs);
        return match out {
            OracleOutcome::Runs | OracleOutcome::Error => None,
            OracleOutcome::Skip(rd) => {
                let live =
                    Some(rd.reason) == ctx.reasons.backend_not_available && !ctx.class_is_cpu && !ctx.class_is_custom;
                Some((rd.reason, Detail::Text(rd.detail), live))
            }
        };
    }
    // (d) base items: truthy values with a resolvable key, sorted by key text.
    if ctx.keys.base_items.is_empty() {
        return Some((ctx.reasons.gen_no_dtypes, Detail::GeneratedNoDtypes(name), false));
    }
    if let Some(rd) = gen.late {
        return Some((rd.reason, Detail::Text(rd.detail), false));
    }
    let code = |pos: usize| gen.dt.get(pos).copied().unwrap_or(DtCode::Rejected);
    // torchcts' preflight catches an exception raised for any base item and skips nothing.
    if ctx.keys.base_items.iter().any(|&pos| code(pos) == DtCode::Error) {
        return None;
    }
    // The contract items: the base items the recorded contract allows, or,
    // when there are none, those whose probe (not recorded) succeeded.
    let recorded = ctx.keys.base_items.iter().any(|&pos| code(pos) == DtCode::Allowed);
    let wanted = if recorded { DtCode::Allowed } else { DtCode::ProbeOk };
    if !ctx.keys.base_items.iter().any(|&pos| code(pos) == wanted) {
        return Some((ctx.reasons.contract_unsupported, Detail::GeneratedCpuContract(name), false));
    }
    if !gen.post_contract {
        return None;
    }
    if let Some(shape) = &gen.manual_shape {
        let ieee = if shape.clean_only || shape.clean_family { false } else { ctx.ieee754(shape.base) };
        let mut ok = false;
        for pos in ctx.keys.base_items.iter().copied().filter(|&pos| code(pos) == wanted) {
            let Some(Some(cases)) = shape.cases.get(pos) else { continue };
            if cases[0] == Some(true) || (ieee && (cases[1] == Some(true) || cases[2] == Some(true))) {
                ok = true;
                break;
            }
        }
        if !ok {
            return Some((ctx.reasons.strategy_pending, Detail::GeneratedShape(name), false));
        }
    }
    None
}

/// The dtype a `supported_dtypes` key names for generated entries:
/// `str_to_dtype(key)` (or, with `torch_prefix`, also `str_to_dtype("torch." + key)`).
pub(super) fn resolve_key_dtype(inv: &Inventory, key: &PyValue, torch_prefix: bool) -> Option<StrId> {
    match key {
        PyValue::Dtype(d) => inv.lookup(canonical_dtype(d).unwrap_or(d.as_str())),
        PyValue::Str(s) => {
            // str_to_dtype: "torch.<attr>" resolves through torch (aliases too); other text does not.
            let direct = if s.starts_with("torch.") { canonical_dtype(s) } else { None };
            let resolved = direct.or_else(|| if torch_prefix { canonical_dtype(&format!("torch.{s}")) } else { None });
            resolved.and_then(|c| inv.lookup(c))
        }
        _ => None,
    }
}
