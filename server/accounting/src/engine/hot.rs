//! The compact per-item table the rule chain reads for every item.
//!
//! An accounting visits all ~20,000 items of the maximal collection. A full
//! [`Item`] is ~250 bytes (node id, per-device facts, rare gates behind
//! pointers), so walking the items streamed ~5 MB per accounting and missed
//! the cache on every `requires` list. The fields every item needs live here
//! instead, contiguous and small; the full item is read only for the ~2,800
//! items with rare facts. Capability lists are interned into a few dozen
//! sets so their outcome is decided once per set, not once per item.
//!
//! Items are also grouped by everything the rule chain reads from them except
//! the operator name: the 17,548 items without rare facts fall into 230 groups.
//! The operator matters to the outcome only through a regex dtype filter, a
//! pattern-valued `ieee754` or `skip_ops`; where the manifest has none of those
//! for a group, the accounting decides the group once and counts it in bulk.

// foldhash: loading hashes every item and string; SipHash was a third of the load time.
use foldhash::{HashMap, HashMapExt};

use crate::inventory::{
    rare, BackwardOp, DtCode, DtypeCheck, ForwardOp, Generated, Item, OiParam, OracleOutcome, Placeholders,
    ReasonDetail, ShapeFacts, StrId,
};

/// When an item of the maximal collection exists for a manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Presence {
    /// A fixed pytest item: always collected.
    Always,
    /// OpInfo forward parameter; `clean` is the clean condition (NaN/Inf
    /// conditions also need float/complex, the op's ieee754 flag and the
    /// manifest's `ieee754`).
    Forward {
        clean: bool,
    },
    Backward,
    Errors,
    /// Generated foreach/fused case.
    Foreach,
    /// A generated parameter without a dtype: never produced from a manifest.
    Never,
}

/// What the rule chain reads for every item.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HotItem {
    pub op: Option<StrId>,
    pub d1: Option<DtypeCheck>,
    /// Forward/backward OpInfo table index (`u32::MAX` if absent).
    pub table: u32,
    /// Bit c set: the item has device facts for device class c.
    pub dev_classes: u64,
    /// Index into [`HotTable::requires_sets`]; 0 is the empty set.
    pub requires: u16,
    /// [`Item::rare`] without the device bit (that one is per class here).
    pub rare: u16,
    pub level: u8,
    pub presence: Presence,
}

impl HotItem {
    pub fn has_dev(&self, class: u8) -> bool {
        class < 64 && self.dev_classes & (1u64 << class) != 0
    }
}

/// [`HotTable::group_of`] for an item decided on its own (it has rare facts).
pub(crate) const NO_GROUP: u32 = u32::MAX;

/// What makes a group's outcome depend on the operator, given the manifest.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GroupInfo {
    /// The dtype the group's items check: a regex filter for it makes the
    /// outcome depend on the operator name.
    pub dt: Option<StrId>,
    /// NaN/Inf OpInfo parameters of an ieee754-capable op with a float or
    /// complex dtype: a pattern-valued `ieee754` is searched in the op name.
    pub ieee754_by_op: bool,
    /// Generated entries whose preflight checks the manifest's dtype keys
    /// against the entry name: a regex-valued key makes the name matter.
    pub generated_by_name: bool,
}

pub(crate) struct HotTable {
    pub items: Vec<HotItem>,
    /// Forward, backward, errors, foreach (the order of `PlaceholderKind`).
    pub placeholders: [HotItem; 4],
    /// Distinct `requires` lists; index 0 is empty.
    pub requires_sets: Vec<Vec<StrId>>,
    /// Per item: its group, or [`NO_GROUP`].
    pub group_of: Vec<u32>,
    pub groups: Vec<GroupInfo>,
    /// Items of group g: `group_members[group_start[g]..group_start[g + 1]]`, in collection order.
    pub group_members: Vec<u32>,
    pub group_start: Vec<u32>,
    /// Items in no group (rare facts), in collection order.
    pub ungrouped: Vec<u32>,
    /// Item indices per operator (keyed by the first string id of its name), for `skip_ops`.
    pub items_by_op: HashMap<StrId, Vec<u32>>,
}

/// Everything the rule chain and the presence test read from a common item,
/// except the operator name (and a generated entry's name).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Signature {
    d1: Option<DtypeCheck>,
    presence: Presence,
    sparse: bool,
    ieee_ok: bool,
    requires: u16,
    level: u8,
    /// The rare facts a grouped item may have: a generated entry and manual_rng.
    rare: u16,
    rng: u8,
    generated: Option<u32>,
}

/// A generated entry's facts without its name.
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct GeneratedKey<'a> {
    oracle_runner: bool,
    early: Option<ReasonDetail>,
    oracle: &'a [(u8, OracleOutcome)],
    late: Option<ReasonDetail>,
    post_contract: bool,
    dt: &'a [DtCode],
    manual_shape: Option<&'a ShapeFacts>,
}

impl<'a> GeneratedKey<'a> {
    pub(crate) fn of(g: &'a Generated) -> GeneratedKey<'a> {
        GeneratedKey {
            oracle_runner: g.oracle_runner,
            early: g.early,
            oracle: &g.oracle,
            late: g.late,
            post_contract: g.post_contract,
            dt: &g.dt,
            manual_shape: g.manual_shape.as_ref(),
        }
    }
}

/// What [`build`] reads from the loaded inventory.
pub(crate) struct BuildInput<'a> {
    pub items: &'a [Item],
    /// The items' node ids ([`Item::id`]), for messages.
    pub ids: &'a str,
    pub placeholders: &'a Placeholders,
    pub device_classes: usize,
    pub clean: StrId,
    pub forward: &'a [ForwardOp],
    pub backward: &'a [BackwardOp],
    pub generated: &'a [Generated],
    /// Per string id: 1 if it names a float/complex dtype.
    pub float_or_complex_by_str: &'a [u8],
    /// The first string id of a text (ids of equal texts may differ).
    pub canonical: &'a dyn Fn(StrId) -> StrId,
}

/// Build the table. Fails only on an inventory that breaks the invariants
/// the extraction script guarantees (OpInfo parameters equal to the item's
/// op and dtype, fewer than 64 device classes, few capability sets).
pub(crate) fn build(input: BuildInput) -> Result<HotTable, String> {
    if input.device_classes > 64 {
        return Err(format!("inventory has {} device classes; at most 64 are supported", input.device_classes));
    }
    let mut sets = CapabilitySets::new();
    // Sized up front: collecting through `Result` grows by doubling, up to 1.6x the table.
    let mut items = Vec::with_capacity(input.items.len());
    for it in input.items {
        items.push(hot_item(it, &input, &mut sets)?);
    }
    let p = input.placeholders;
    let placeholders = [
        hot_item(&p.forward, &input, &mut sets)?,
        hot_item(&p.backward, &input, &mut sets)?,
        hot_item(&p.errors, &input, &mut sets)?,
        hot_item(&p.foreach, &input, &mut sets)?,
    ];
    let Grouping { groups, group_of, items_by_op } = group_items(&input, &items);
    let (group_start, group_members, ungrouped) = members_by_group(&group_of, groups.len());
    Ok(HotTable {
        ungrouped,
        items,
        placeholders,
        requires_sets: sets.sets,
        group_of,
        groups,
        group_members,
        group_start,
        items_by_op,
    })
}

/// The distinct `requires` lists, interned in the order they are met; index 0 is empty.
struct CapabilitySets {
    sets: Vec<Vec<StrId>>,
    index: HashMap<Vec<StrId>, u16>,
}

impl CapabilitySets {
    fn new() -> CapabilitySets {
        let mut index = HashMap::new();
        index.insert(Vec::new(), 0);
        CapabilitySets { sets: vec![Vec::new()], index }
    }

    fn intern(&mut self, requires: &[StrId]) -> Result<u16, String> {
        if let Some(&i) = self.index.get(requires) {
            return Ok(i);
        }
        let i = u16::try_from(self.sets.len())
            .map_err(|_| "inventory has too many distinct capability sets".to_string())?;
        self.sets.push(requires.to_vec());
        self.index.insert(requires.to_vec(), i);
        Ok(i)
    }
}

/// Phase 1: an item's row of the table.
fn hot_item(it: &Item, input: &BuildInput, sets: &mut CapabilitySets) -> Result<HotItem, String> {
    let requires = sets.intern(&it.requires)?;
    let (presence, table) =
        presence(it, input.clean).map_err(|problem| format!("inventory item {}: {problem}", it.id_in(input.ids)))?;
    let mut dev_classes = 0u64;
    for (class, facts) in &it.dev {
        if !facts.is_empty() && (*class as usize) < 64 {
            dev_classes |= 1u64 << class;
        }
    }
    Ok(HotItem {
        op: it.op,
        d1: it.d1,
        table,
        dev_classes,
        requires,
        rare: it.rare & !rare::DEV,
        level: it.level,
        presence,
    })
}

/// When the item exists, and its forward/backward OpInfo table index (`u32::MAX` if none),
/// checking that its OpInfo parameters agree with its op and dtype.
fn presence(it: &Item, clean: StrId) -> Result<(Presence, u32), String> {
    let d1_dt = it.d1.as_ref().map(|d| d.dt);
    let consistent = |op: StrId, dt: Option<StrId>| it.op == Some(op) && (dt.is_none() || d1_dt == dt);
    Ok(match it.opinfo {
        Some(OiParam::Forward { op, dt, cond, table }) => {
            if !consistent(op, Some(dt)) {
                return Err("OpInfo parameters differ from its op/dtype".into());
            }
            (Presence::Forward { clean: cond == clean }, table)
        }
        Some(OiParam::Backward { op, dt, table }) => {
            if !consistent(op, Some(dt)) {
                return Err("OpInfo parameters differ from its op/dtype".into());
            }
            (Presence::Backward, table)
        }
        Some(OiParam::Errors { op }) => {
            if !consistent(op, None) {
                return Err("OpInfo parameters differ from its op".into());
            }
            (Presence::Errors, u32::MAX)
        }
        None => match it.foreach_entry {
            Some(entry) if it.d1.is_some() && it.op == Some(entry) => (Presence::Foreach, u32::MAX),
            Some(entry) if it.d1.is_some() => return Err(format!("foreach entry {entry} differs from its op")),
            Some(_) => (Presence::Never, u32::MAX),
            None => (Presence::Always, u32::MAX),
        },
    })
}

/// What phase 2 finds: the groups, each item's group, and items per operator.
struct Grouping {
    groups: Vec<GroupInfo>,
    group_of: Vec<u32>,
    items_by_op: HashMap<StrId, Vec<u32>>,
}

/// Phase 2: items with equal [`Signature`]s share a group; items with other rare facts or
/// device facts stay on their own ([`NO_GROUP`]).
fn group_items(input: &BuildInput, hot_items: &[HotItem]) -> Grouping {
    let mut generated_keys: HashMap<GeneratedKey, u32> = HashMap::new();
    let mut groups: Vec<GroupInfo> = Vec::new();
    let mut group_index: HashMap<Signature, u32> = HashMap::new();
    let mut group_of = Vec::with_capacity(hot_items.len());
    let mut items_by_op: HashMap<StrId, Vec<u32>> = HashMap::new();
    // Items of one operator come in runs (its dtypes, conditions): each run is added to
    // `items_by_op` at once, and an item with the signature of the one before joins its
    // group without a lookup.
    let mut op_run: (Option<StrId>, Vec<u32>) = (None, Vec::new());
    let mut previous: Option<(Signature, u32)> = None;
    for (i, hot) in hot_items.iter().enumerate() {
        let op = hot.op.map(input.canonical);
        if op != op_run.0 {
            if let Some(run_op) = op_run.0 {
                items_by_op.entry(run_op).or_default().extend_from_slice(&op_run.1);
            }
            op_run = (op, Vec::new());
        }
        if op.is_some() {
            op_run.1.push(i as u32);
        }
        // Generated entries group by their facts without the name; other rare facts
        // and device facts keep an item on its own.
        let groupable_rare = rare::GENERATED | rare::RNG;
        let entry = input.items[i].generated.and_then(|g| input.generated.get(g as usize));
        if hot.rare & !groupable_rare != 0
            || hot.dev_classes != 0
            || (hot.rare & rare::GENERATED != 0) != entry.is_some()
        {
            group_of.push(NO_GROUP);
            continue;
        }
        let generated_key = entry.map(|e| {
            let next = generated_keys.len() as u32;
            *generated_keys.entry(GeneratedKey::of(e)).or_insert(next)
        });
        let (signature, info) = signature(input, hot, input.items[i].rng, entry, generated_key);
        let g = match previous.take() {
            Some((same, g)) if same == signature => g,
            _ => {
                let next = groups.len() as u32;
                let g = *group_index.entry(signature).or_insert(next);
                if g == next {
                    groups.push(info);
                }
                g
            }
        };
        previous = Some((signature, g));
        group_of.push(g);
    }
    if let Some(run_op) = op_run.0 {
        items_by_op.entry(run_op).or_default().extend_from_slice(&op_run.1);
    }
    Grouping { groups, group_of, items_by_op }
}

/// A groupable item's signature, and what makes its group's outcome depend on the operator.
fn signature(
    input: &BuildInput,
    hot: &HotItem,
    rng: u8,
    entry: Option<&Generated>,
    generated: Option<u32>,
) -> (Signature, GroupInfo) {
    let (sparse, ieee_ok) = match hot.presence {
        Presence::Forward { .. } => {
            input.forward.get(hot.table as usize).map_or((false, false), |f| (f.sparse, f.ieee_ok))
        }
        Presence::Backward => (input.backward.get(hot.table as usize).is_some_and(|b| b.sparse), false),
        _ => (false, false),
    };
    let dt = hot.d1.map(|d| d.dt);
    let fc = dt.is_some_and(|dt| input.float_or_complex_by_str.get(dt as usize).copied().unwrap_or(0) == 1);
    let signature = Signature {
        d1: hot.d1,
        presence: hot.presence,
        sparse,
        ieee_ok,
        requires: hot.requires,
        level: hot.level,
        rare: hot.rare,
        rng,
        generated,
    };
    let info = GroupInfo {
        dt,
        ieee754_by_op: hot.presence == Presence::Forward { clean: false } && fc && ieee_ok,
        generated_by_name: entry.is_some_and(|e| !e.oracle_runner),
    };
    (signature, info)
}

/// Phase 3: the members of each group, contiguous and in collection order, and the
/// items in no group: (group_start, group_members, ungrouped).
fn members_by_group(group_of: &[u32], groups: usize) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut group_start = vec![0u32; groups + 1];
    for &g in group_of.iter().filter(|&&g| g != NO_GROUP) {
        group_start[g as usize + 1] += 1;
    }
    for g in 0..groups {
        group_start[g + 1] += group_start[g];
    }
    let mut fill = group_start.clone();
    let mut group_members = vec![0u32; group_start[groups] as usize];
    for (i, &g) in group_of.iter().enumerate().filter(|(_, &g)| g != NO_GROUP) {
        group_members[fill[g as usize] as usize] = i as u32;
        fill[g as usize] += 1;
    }
    let ungrouped = (0..group_of.len()).filter(|&i| group_of[i] == NO_GROUP).map(|i| i as u32).collect();
    (group_start, group_members, ungrouped)
}

impl HotTable {
    pub fn members(&self, group: usize) -> &[u32] {
        &self.group_members[self.group_start[group] as usize..self.group_start[group + 1] as usize]
    }
}
