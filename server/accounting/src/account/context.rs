//! The per-call context of the rule chain ([`Ctx`]): the manifest's facts resolved once
//! (device class, dtype filters, capabilities, `ieee754`, the dtype keys), memoised per call.

use super::phases::Outcome;
use super::preflight::resolve_key_dtype;
use super::resolve_device;
use super::result::AccountingProblem;
use super::result::Detail;
use super::result::DeviceResolution;
use super::result::DtypeLabel;
use super::result::LabelKind;
use crate::bits::Bits;
use crate::engine::reasons::ChainReasons;
use crate::engine::regex_cache::RegexEntry;
use crate::facts::canonical_dtype;
use crate::facts::LevelSelection;
use crate::facts::ManifestFacts;
use crate::facts::PyValue;
use crate::inventory::Reason;
use crate::inventory::StrId;
use crate::inventory::NO_DTYPE_SLOT;
use crate::pyfmt::parse_float;
use crate::Inventory;
use std::collections::HashMap;

/// The disposition of one dtype under `supported_dtypes`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Filter {
    NotListed,
    True,
    False,
    Regex(u32),
    Unsupported(u32),
}

/// What a capability set decides (step 4 of the chain).
#[derive(Debug, Clone, Copy)]
pub(super) enum Requires {
    Met,
    /// Bit i set for a missing `requires[i]`.
    Missing(u64),
    DeviceCount,
}

/// `capabilities.ieee754`: True (default), a regex, a list of regexes, or off.
pub(super) enum Ieee754 {
    On,
    Off,
    Patterns(Vec<u32>),
}

pub(crate) struct Ctx<'a, 'f> {
    pub(super) ieee754: Ieee754,
    /// What the dtype keys resolve to.
    pub(super) keys: DtypeKeys,
    /// [`Ctx::keys_allow_every_name`], once known.
    pub(super) keys_allow: Option<Option<bool>>,
    pub(super) inv: &'a Inventory,
    pub(super) facts: &'f ManifestFacts,
    pub(super) class: u8,
    pub(super) class_is_cpu: bool,
    pub(super) class_is_custom: bool,
    pub(super) selection: LevelSelection,
    /// `skip_ops` names that are strings of the inventory, by canonical id.
    pub(super) skip_ops: Bits,
    /// Per inventory dtype position ([`Inventory::dtype_slot`]).
    pub(super) filters: Vec<Option<Filter>>,
    pub(super) cap_memo: Vec<u8>,
    /// Outcome of each interned capability set (`HotTable::requires_sets`).
    pub(super) requires_memo: Vec<Option<Requires>>,
    /// Outcome of each generated entry's collection preflight.
    /// (0: not yet; k: `generated_outcomes[k - 1]`): zeroed memory costs nothing to set up,
    /// and a context is set up per accounting and per what-if question.
    pub(super) generated_memo: Vec<u32>,
    pub(super) generated_outcomes: Vec<Outcome>,
    /// Regex entries taken out of the inventory cache for this call, by pattern id. The
    /// cache is locked only to take and to give back: accountings on one inventory (the
    /// keystroke's, a hover's what-if, the inlay hints') run side by side.
    pub(super) entries: Vec<Option<(String, RegexEntry)>>,
    pub(super) patterns: Vec<String>,
    pub(super) pattern_index: HashMap<String, u32>,
    pub(super) values: Vec<String>,
    pub(super) problems: Vec<AccountingProblem>,
    pub(super) device_count: f64,
    pub(super) reasons: ChainReasons,
    /// Items the project's known-segfault ledger records without running them.
    pub(super) project_crashes: Option<crate::bits::Bits>,
    /// Items a project ledger entry matches: `project_crashes` decides them, not the
    /// inventory's packaged crash fact (the best match of both ledgers may be a project
    /// `subprocess` entry).
    pub(super) project_decided: Option<crate::bits::Bits>,
    /// Project ledger entries whose tests are not counted, and why.
    pub(super) ledger_notes: Vec<String>,
}

impl<'a, 'f> Ctx<'a, 'f> {
    pub(super) fn text(&self, s: StrId) -> &'a str {
        self.inv.string(s)
    }

    /// `dt in sd` (dtype object) then `dt_str in sd`.
    #[inline]
    pub(super) fn filter(&mut self, dt: StrId) -> Filter {
        let slot = self.inv.dtype_slot.get(dt as usize).copied().unwrap_or(NO_DTYPE_SLOT);
        match self.filters.get(slot as usize) {
            Some(Some(f)) => *f,
            _ => self.filter_uncached(dt),
        }
    }

    pub(super) fn filter_uncached(&mut self, dt: StrId) -> Filter {
        let f = match dtype_entry(self.facts, self.inv.string(dt)) {
            None => Filter::NotListed,
            Some(PyValue::Bool(true)) => Filter::True,
            Some(PyValue::Bool(false)) => Filter::False,
            Some(PyValue::Str(p)) => Filter::Regex(self.pattern_id(p)),
            Some(other) => {
                let i = self.values.len() as u32;
                self.values.push(other.repr());
                Filter::Unsupported(i)
            }
        };
        let slot = self.inv.dtype_slot.get(dt as usize).copied().unwrap_or(NO_DTYPE_SLOT);
        if let Some(memo) = self.filters.get_mut(slot as usize) {
            *memo = Some(f);
        }
        f
    }

    /// Whether `dtype_manifest_disposition(dt, dt_str, sd, op_name)` lets `dt` in for `op`.
    #[inline]
    pub(super) fn allowed(&mut self, dt: StrId, op: Option<StrId>) -> bool {
        match self.filter(dt) {
            Filter::True => true,
            Filter::Regex(p) => match op {
                Some(op) if !self.text(op).is_empty() => self.search(p, op),
                _ => false,
            },
            Filter::NotListed | Filter::False | Filter::Unsupported(_) => false,
        }
    }

    /// `dtype_manifest_disposition(dt, dt_str, sd, op_name)`: the reason
    /// `dt` is refused, `None` when allowed.
    #[inline]
    pub(super) fn disposition(&mut self, dt: StrId, op: Option<StrId>, kind: LabelKind) -> Option<(Reason, Detail)> {
        if self.allowed(dt, op) {
            return None;
        }
        let label = DtypeLabel { dt, kind };
        match self.filter(dt) {
            Filter::True => None,
            Filter::NotListed => Some((self.reasons.not_listed, Detail::NotListed(label))),
            Filter::False => Some((self.reasons.not_supported, Detail::DeclaredUnsupported(label))),
            Filter::Unsupported(v) => Some((self.reasons.not_supported, Detail::UnsupportedValue { label, value: v })),
            Filter::Regex(p) => Some((self.reasons.regex, Detail::RegexFiltered { label, op, pattern: p })),
        }
    }

    /// `caps.get(name, False)` truthiness, memoised per interned name.
    pub(super) fn cap_declared(&mut self, name: StrId) -> bool {
        let slot = self.cap_memo[name as usize];
        if slot != 0 {
            return slot == 2;
        }
        let hit = self.facts.capability(self.inv.string(name)).map(PyValue::truthy).unwrap_or(false);
        self.cap_memo[name as usize] = if hit { 2 } else { 1 };
        hit
    }

    /// Step 4 for one interned capability set, decided once per accounting.
    #[inline]
    pub(super) fn requires(&mut self, set: u16) -> Requires {
        match self.requires_memo[set as usize] {
            Some(r) => r,
            None => self.requires_uncached(set),
        }
    }

    pub(super) fn requires_uncached(&mut self, set: u16) -> Requires {
        let inv = self.inv;
        let caps = &inv.engine.hot.requires_sets[set as usize];
        let mut mask = 0u64;
        for (i, &c) in caps.iter().enumerate().take(64) {
            if c != inv.well_known.multi_device && !self.cap_declared(c) {
                mask |= 1 << i;
            }
        }
        let r = if mask != 0 {
            Requires::Missing(mask)
        } else if caps.contains(&inv.well_known.multi_device) && self.device_count < 2.0 {
            Requires::DeviceCount
        } else {
            Requires::Met
        };
        self.requires_memo[set as usize] = Some(r);
        r
    }

    pub(super) fn cap(&self, name: &str) -> Option<&'f PyValue> {
        self.facts.capability(name)
    }

    /// `_ieee754_enabled_for_op` (OpInfo) / `ieee754_enabled` (generated),
    /// after the op-specific exclusions.
    pub(super) fn ieee754(&mut self, op: StrId) -> bool {
        match &self.ieee754 {
            Ieee754::On => true,
            Ieee754::Off => false,
            Ieee754::Patterns(ps) => {
                for i in 0..ps.len() {
                    let p = match &self.ieee754 {
                        Ieee754::Patterns(ps) => ps[i],
                        _ => unreachable!(),
                    };
                    if self.search(p, op) {
                        return true;
                    }
                }
                false
            }
        }
    }

    /// `op_name in skip_ops`.
    #[inline]
    pub(super) fn skip_op(&self, op: StrId) -> bool {
        self.inv.canonical_str.get(op as usize).is_some_and(|&c| self.skip_ops.get(c as usize))
    }

    pub(super) fn sparse_ok(&self) -> bool {
        self.cap("sparse").map(PyValue::truthy).unwrap_or(false)
    }

    pub(super) fn is_fc(&self, dt: StrId) -> bool {
        self.inv.float_or_complex_by_str.get(dt as usize).copied().unwrap_or(0) == 1
    }
}

/// The `supported_dtypes` value that decides the dtype named `name`: `dt in sd` (a dtype
/// object key) first, then `dt_str in sd` (a string key); the last duplicate wins.
pub(crate) fn dtype_entry<'f>(facts: &'f ManifestFacts, name: &str) -> Option<&'f PyValue> {
    let sd = &facts.supported_dtypes;
    let by_obj = sd.iter().rev().find(|(k, _)| match k {
        PyValue::Dtype(d) => canonical_dtype(d).unwrap_or(d.as_str()) == name,
        _ => false,
    });
    let by_str = || sd.iter().rev().find(|(k, _)| matches!(k, PyValue::Str(s) if s == name));
    by_obj.or_else(by_str).map(|(_, v)| v)
}

pub(super) fn first_numeric(v: Option<&PyValue>, default: Option<f64>) -> Option<f64> {
    let v = match v {
        Some(PyValue::List(xs)) | Some(PyValue::Tuple(xs)) => match xs.first() {
            Some(x) => Some(x),
            None => return default,
        },
        other => other,
    };
    match v {
        None | Some(PyValue::None) => default,
        Some(PyValue::Str(s)) if s == "auto" => default,
        Some(PyValue::Bool(b)) => Some(if *b { 1.0 } else { 0.0 }),
        Some(PyValue::Int(i)) => Some(*i as f64),
        Some(PyValue::Float(f)) => Some(*f),
        Some(PyValue::Str(s)) => parse_float(s).or(default),
        Some(_) => default,
    }
}

pub(super) fn py_number(v: &PyValue) -> Option<f64> {
    match v {
        PyValue::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        PyValue::Int(i) => Some(*i as f64),
        PyValue::Float(f) => Some(*f),
        _ => None,
    }
}

/// The per-call context: device class, reason ids, `skip_ops`, the dtype keys and the
/// `ieee754` capability, resolved once for the rule chain.
pub(super) fn new_context<'a, 'f>(
    inv: &'a Inventory,
    facts: &'f ManifestFacts,
    device: &str,
    selection: LevelSelection,
    keys: Option<&DtypeKeys>,
) -> (Ctx<'a, 'f>, DeviceResolution) {
    let resolution = resolve_device(inv, device);
    let class =
        inv.devices.iter().position(|d| d.name == resolution.class).unwrap_or(inv.custom_device_class as usize) as u8;
    let mut problems = Vec::new();
    let device_count = match &facts.device_count {
        None => 1.0,
        Some(v) => match py_number(v) {
            Some(n) => n,
            None => {
                problems.push(AccountingProblem {
                    message: format!("device_count {} is not a number: the real collection fails", v.repr()),
                });
                1.0
            }
        },
    };
    let mut ctx = Ctx {
        inv,
        facts,
        class,
        class_is_cpu: inv.devices[class as usize].name == "cpu",
        class_is_custom: class == inv.custom_device_class,
        selection,
        skip_ops: {
            let mut ids = Bits::new(inv.strings.len());
            for id in facts.skip_ops.iter().filter_map(|name| inv.lookup(name)) {
                ids.set(id as usize);
            }
            ids
        },
        filters: vec![None; inv.dtype_pos.len()],
        cap_memo: vec![0; inv.strings.len()],
        requires_memo: vec![None; inv.engine.hot.requires_sets.len()],
        generated_memo: vec![0; inv.generated.len()],
        generated_outcomes: Vec::new(),
        entries: Vec::new(),
        patterns: Vec::new(),
        pattern_index: HashMap::new(),
        values: Vec::new(),
        problems,
        device_count,
        reasons: inv.engine.reasons,
        ieee754: Ieee754::Off,
        keys: match keys {
            Some(keys) => keys.clone(),
            None => DtypeKeys::of(inv, facts),
        },
        keys_allow: None,
        project_crashes: None,
        project_decided: None,
        ledger_notes: Vec::new(),
    };
    let ledger = &facts.project_ledger;
    if !ledger.entries.is_empty() {
        let torch = if ledger.torch.is_empty() { inv.meta.torch_version.as_str() } else { ledger.torch.as_str() };
        let hardware = crate::ledger::hardware_key(&resolution.device, facts, &ledger.host);
        let matcher = crate::ledger::ProjectMatcher::new(
            inv,
            &ledger.entries,
            (&resolution.device, torch, hardware.as_deref()),
            facts,
            |i| inv.engine.hot.items[i].level,
        );
        ctx.project_crashes = matcher.crash_items;
        ctx.project_decided = matcher.decided;
        ctx.ledger_notes = matcher.notes;
    }
    ctx.ieee754 = match facts.capability("ieee754") {
        None | Some(PyValue::Bool(true)) => Ieee754::On,
        Some(PyValue::Str(p)) => Ieee754::Patterns(vec![ctx.pattern_id(p)]),
        Some(PyValue::List(ps)) | Some(PyValue::Tuple(ps)) => {
            // A non-str element makes re.search raise TypeError in torchcts.
            let ids = ps.iter().filter_map(|p| p.as_str()).map(|p| ctx.pattern_id(p)).collect();
            Ieee754::Patterns(ids)
        }
        Some(_) => Ieee754::Off,
    };

    (ctx, resolution)
}

/// What the generated preflight reads of `supported_dtypes`: the same for every context of
/// equal dtype entries (a what-if question on a capability reuses its base's).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DtypeKeys {
    /// `manifest_effective_dtype_items` candidates: the dtypes the keys resolve to
    /// (`str_to_dtype`, with the `torch.` prefix tried).
    pub(super) effective: Vec<StrId>,
    /// `sample_manifest_dtype_items`: inventory dtype positions, sorted by key text.
    pub(super) base_items: Vec<usize>,
    /// `base_items` as a set (positions under 64).
    pub(super) base_mask: u64,
}

impl DtypeKeys {
    pub(crate) fn of(inv: &Inventory, facts: &ManifestFacts) -> DtypeKeys {
        let effective = facts.supported_dtypes.iter().filter_map(|(k, _)| resolve_key_dtype(inv, k, true)).collect();
        let mut base: Vec<(&str, usize)> = Vec::new();
        for (k, v) in &facts.supported_dtypes {
            if !v.truthy() {
                continue;
            }
            let (text, dt) = match k {
                PyValue::Dtype(d) => {
                    let c = canonical_dtype(d).unwrap_or(d.as_str());
                    (c, inv.lookup(c))
                }
                PyValue::Str(s) => (s.as_str(), resolve_key_dtype(inv, k, false)),
                _ => continue,
            };
            if let Some(pos) = dt.and_then(|d| inv.dtype_pos.get(&d).copied()) {
                base.push((text, pos));
            }
        }
        base.sort_by(|a, b| a.0.cmp(b.0));
        let base_items: Vec<usize> = base.into_iter().map(|(_, p)| p).collect();
        let base_mask = base_items.iter().filter(|&&p| p < 64).fold(0, |m, &p| m | 1 << p);
        DtypeKeys { effective, base_items, base_mask }
    }
}
