//! What the what-if questions need from the inventory, built once per inventory: which item
//! groups and ungrouped items read which manifest facts ([`Dependents`]), the records of the
//! pending OpInfo phase ([`PendingRef`]) and each generated entry's preflight facts as bit
//! masks ([`PreflightMasks`]).

use foldhash::HashMap;

use super::hot::{GeneratedKey, HotTable, NO_GROUP};
use crate::inventory::{rare, DtCode, Generated, StrId, Tables};

/// Groups and ungrouped items (indices) whose decision reads one manifest fact.
#[derive(Default)]
pub(crate) struct Units {
    pub(crate) groups: Vec<u32>,
    pub(crate) items: Vec<u32>,
}

/// Which units read which facts; built from the tables on the first what-if question.
pub(crate) struct Dependents {
    /// Per dtype (canonical string id): units that read its `supported_dtypes` entry.
    pub(crate) by_dtype: HashMap<StrId, Units>,
    /// Per capability set (`HotTable::requires_sets`): units gated by it.
    pub(crate) by_requires: Vec<Units>,
    /// Units that read the `rng` and `device_generator` capabilities.
    pub(crate) rng: Units,
    /// Generated entries by class of equal facts but the name (`hot::GeneratedKey`): their
    /// preflight reads every dtype key.
    pub(crate) generated_classes: Vec<GeneratedClass>,
    /// Per dtype (canonical string id): its pending OpInfo records.
    pub(crate) pending_by_dtype: HashMap<StrId, Vec<PendingRef>>,
}

/// The units of one class of generated entries and what decides its preflight.
pub(crate) struct GeneratedClass {
    pub(crate) units: Units,
    /// One of its entries (index into `Tables::generated`).
    pub(crate) entry: u32,
    pub(crate) masks: Option<PreflightMasks>,
}

impl Dependents {
    pub(crate) fn of(inv: &Tables, hot: &HotTable) -> Dependents {
        let canonical = |s: StrId| inv.canonical_str.get(s as usize).copied().unwrap_or(s);
        let mut deps = Dependents {
            by_dtype: HashMap::default(),
            by_requires: (0..hot.requires_sets.len()).map(|_| Units::default()).collect(),
            rng: Units::default(),
            generated_classes: Vec::new(),
            pending_by_dtype: HashMap::default(),
        };
        for (dt, record) in PendingRef::all(inv) {
            deps.pending_by_dtype.entry(canonical(dt)).or_default().push(record);
        }
        let mut classes: HashMap<GeneratedKey, usize> = HashMap::default();
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
            let mut dtypes: Vec<StrId> = h.d1.iter().map(|d| d.dt).collect();
            if h.rare & rare::D2 != 0 {
                dtypes.extend(item.d2.iter().map(|d| d.dt));
            }
            if h.rare & rare::FIXED != 0 {
                dtypes.extend(item.fixed.iter().map(|f| f.dt));
            }
            if h.rare & rare::GRADCHECK != 0 {
                dtypes.push(inv.well_known.float64);
            }
            let mut dtypes: Vec<StrId> = dtypes.into_iter().map(canonical).collect();
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
            let generated = if h.rare & rare::GENERATED != 0 { item.generated } else { None };
            if let Some((g, entry)) = generated.and_then(|g| inv.generated.get(g as usize).map(|e| (g, e))) {
                let next = classes.len();
                let class = *classes.entry(GeneratedKey::of(entry)).or_insert(next);
                if class == next {
                    let masks = PreflightMasks::of(inv, entry);
                    deps.generated_classes.push(GeneratedClass { units: Units::default(), entry: g, masks });
                }
                add(&mut deps.generated_classes[class].units);
            }
        }
        deps
    }
}

/// One OpInfo record of the pending phase: a dtype of an operator's table.
#[derive(Clone, Copy)]
pub(crate) enum PendingRef {
    Backward { op: u32, dtype: u32 },
    Forward { op: u32, dtype: u32 },
}

impl PendingRef {
    /// Every record of the pending phase, with its dtype (not canonical).
    pub(crate) fn all(inv: &Tables) -> impl Iterator<Item = (StrId, PendingRef)> + '_ {
        let backward = inv.backward.iter().enumerate().flat_map(|(op, b)| {
            b.dtypes
                .iter()
                .enumerate()
                .map(move |(k, &(dt, _))| (dt, PendingRef::Backward { op: op as u32, dtype: k as u32 }))
        });
        let forward = inv.forward.iter().enumerate().flat_map(|(op, f)| {
            f.dtypes
                .iter()
                .enumerate()
                .map(move |(k, &(dt, ..))| (dt, PendingRef::Forward { op: op as u32, dtype: k as u32 }))
        });
        backward.chain(forward)
    }
}

/// A generated entry's per-dtype preflight facts as masks over the inventory's dtype
/// positions: what-if questions ask the preflight of every class of entries, and with the
/// base items as a mask that is a few bit operations instead of a walk per class.
pub(crate) struct PreflightMasks {
    pub(crate) allowed: u64,
    pub(crate) probe_ok: u64,
    pub(crate) error: u64,
    pub(crate) shape: Option<ShapeMasks>,
}

/// [`PreflightMasks`] of an entry with manual shape cases.
pub(crate) struct ShapeMasks {
    /// Positions whose clean case runs on CPU.
    pub(crate) clean: u64,
    /// Positions whose NaN or Inf case runs on CPU.
    pub(crate) ieee: u64,
    pub(crate) base: StrId,
    /// The NaN/Inf cases count (the entry is not clean-only).
    pub(crate) ieee_applies: bool,
}

impl PreflightMasks {
    /// `None` when the inventory has more dtypes than a mask holds.
    pub(crate) fn of(inv: &Tables, gen: &Generated) -> Option<PreflightMasks> {
        if inv.dtype_pos.len() > 64 {
            return None;
        }
        let mask =
            |keep: &dyn Fn(usize) -> bool| (0..inv.dtype_pos.len()).filter(|&p| keep(p)).fold(0u64, |m, p| m | 1 << p);
        let code = |pos: usize| gen.dt.get(pos).copied().unwrap_or(DtCode::Rejected);
        let shape = gen.manual_shape.as_ref().map(|shape| {
            let case =
                |pos: usize, k: usize| shape.cases.get(pos).is_some_and(|c| c.is_some_and(|c| c[k] == Some(true)));
            ShapeMasks {
                clean: mask(&|p| case(p, 0)),
                ieee: mask(&|p| case(p, 1) || case(p, 2)),
                base: shape.base,
                ieee_applies: !(shape.clean_only || shape.clean_family),
            }
        });
        Some(PreflightMasks {
            allowed: mask(&|p| code(p) == DtCode::Allowed),
            probe_ok: mask(&|p| code(p) == DtCode::ProbeOk),
            error: mask(&|p| code(p) == DtCode::Error),
            shape,
        })
    }
}
