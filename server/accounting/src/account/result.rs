//! What an accounting gives: the records, counts and the [`Accounting`] that holds them.

use super::phases::retarget;
use super::phases::Decision;
use super::placeholder;
use super::tally::item_position;
use super::tally::level_outcome;
use super::tally::placeholder_position;
use crate::bits::Bits;
use crate::facts::LevelSelection;
use crate::inventory::Reason;
use crate::inventory::StrId;
use crate::Inventory;

/// Where a record comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRef {
    /// An item of the inventory.
    Item(u32),
    /// The placeholder pytest collects for an empty generated parameter set.
    Placeholder(PlaceholderKind),
    /// An OpInfo record that is not a pytest item (declined or CPU-contract
    /// rejected at import time).
    Pending { backward: bool, cond: StrId, op: StrId, dt: StrId },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceholderKind {
    OpinfoForward,
    OpinfoBackward,
    OpinfoErrors,
    Foreach,
}

/// How a dtype was named in a detail text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelKind {
    Plain,
    Autocast,
    Src,
    Dst,
    Fixed,
    Gradcheck,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DtypeLabel {
    pub dt: StrId,
    pub kind: LabelKind,
}

/// The ingredients of a detail text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Detail {
    /// Recorded text (CPU contracts, generated preflight, device rules).
    Text(StrId),
    /// Recorded device text in which the custom-device placeholder name is
    /// replaced by the actual device name.
    DeviceText(StrId),
    NotListed(DtypeLabel),
    DeclaredUnsupported(DtypeLabel),
    RegexFiltered {
        label: DtypeLabel,
        op: Option<StrId>,
        pattern: u32,
    },
    UnsupportedValue {
        label: DtypeLabel,
        value: u32,
    },
    /// Missing capabilities: bit i set for `requires[i]` of the node.
    MissingCapabilities {
        node: NodeRef,
        mask: u64,
    },
    DeviceCount,
    OpExcluded(StrId),
    ContainerFormat(StrId),
    ContainerDecoder(StrId),
    MaxTensorSize(f64),
    DeviceMemory(f64),
    Capability(&'static str),
    GeneratedNoDtypes(StrId),
    GeneratedCpuContract(StrId),
    GeneratedShape(StrId),
    OomNotRecoverable,
    PathShapeEmpty,
    OpinfoEmpty,
    /// A test the project's known-segfault ledger records without running it.
    KnownCrash,
    LevelAbove(u8),
    LevelOutside(u8),
}

/// One not-run record, in show-skips order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record {
    pub node: NodeRef,
    pub reason: Reason,
    pub detail: Detail,
    /// The semantic level of the node (pending OpInfo records: the OpInfo default).
    pub level: u8,
    /// Deselected (not a pytest item that stays collected); false for kept,
    /// skip-marked items and for pending records.
    pub deselected: bool,
    /// The outcome depends on the live device (availability of CUDA/MPS/...,
    /// detected memory) and was computed as on a host without it, like
    /// show-skips on the extraction host.
    pub live_device_dependent: bool,
}

/// Counts for one semantic level (items of that level only; pending OpInfo
/// records count as filtered at the OpInfo level).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelCounts {
    pub level: u8,
    /// Items (collected nodes) of this level.
    pub collected: usize,
    /// Items with no reason other than the level rule: they run when the level is selected.
    pub runnable: usize,
    /// Items (and pending records) filtered for a reason other than the level.
    pub filtered: usize,
}

/// What the device name means to the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceResolution {
    pub device: String,
    /// Device class whose recorded facts are used.
    pub class: String,
    /// The name is not one the inventory recorded facts for; the class is an assumption.
    pub assumed: bool,
}

/// A problem found while accounting (for example a regex Python rejects: the
/// real collection would crash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountingProblem {
    pub message: String,
}

/// The result of [`account`].
#[derive(Clone)]
pub struct Accounting<'a> {
    pub inventory: &'a Inventory,
    /// How the real run names tests (quoted node ids in details get its prefix).
    pub layout: crate::facts::RunLayout,
    pub device: DeviceResolution,
    pub selection: LevelSelection,
    /// pytest items collected (`M` in `K/M tests collected`).
    pub collected: usize,
    /// Items deselected (`D`).
    pub deselected: usize,
    /// Items left (`K = M - D`), including kept skip-marked ones.
    pub included: usize,
    /// Items that execute (no reason at all).
    pub executable: usize,
    /// Number of not-run records ([`Accounting::records`]).
    pub record_count: usize,
    /// Records with a reason other than the semantic level, and their
    /// positions in collection order. Records for the level rule are derived
    /// on demand from `runnable_*`: at a low level they are most of the
    /// suite, and writing ~20,000 of them cost more than the rest of the
    /// accounting.
    pub(super) stored_records: Vec<Record>,
    pub(super) stored_positions: Vec<u64>,
    /// Items decided one by one; the others follow their group's decision.
    pub(super) visited: Bits,
    /// Per item group: its decision in this accounting, and the filtered outcomes.
    pub(super) group_decision: Vec<Decision>,
    pub(super) group_outcomes: Vec<(Reason, Detail, bool)>,
    /// Visited items with no reason (they run where their level is selected).
    pub(super) runnable_items: Bits,
    /// Placeholders with no reason: (item index they come before, kind, level).
    pub(super) runnable_placeholders: Vec<(usize, PlaceholderKind, u8)>,
    /// (reason, count) in first-seen order.
    pub reason_counts: Vec<(Reason, usize)>,
    /// Levels 1..=8.
    pub levels: [LevelCounts; 8],
    pub problems: Vec<AccountingProblem>,
    /// Number of records whose outcome depends on the live device.
    pub live_device_dependent: usize,
    /// Things the inventory cannot model for this manifest (custom_test_dirs, ...).
    pub not_modelled: Vec<String>,
    pub(super) facts_repr: FactsForText,
    /// (semantic_level_gt_requested, semantic_level_out_of_range)
    pub(super) level_reasons: (Reason, Reason),
}

#[derive(Debug, Clone, Default)]
pub(super) struct FactsForText {
    pub(super) device_count: String,
    pub(super) max_level: u8,
    pub(super) label: String,
    pub(super) patterns: Vec<String>,
    pub(super) values: Vec<String>,
}

impl<'a> Accounting<'a> {
    /// What is not stored, in collection order: nodes with no reason (`None`,
    /// they run where their level is selected) and items of filtered groups
    /// (`Some(record)`), with their positions.
    pub(super) fn derived(&self) -> Vec<(u64, NodeRef, u8, Option<Record>)> {
        let inv = self.inventory;
        let mut out = Vec::new();
        for (i, hot) in inv.engine.hot.items.iter().enumerate() {
            let node = NodeRef::Item(i as u32);
            let decision = if self.visited.get(i) {
                if !self.runnable_items.get(i) {
                    continue;
                }
                Decision::Runs
            } else {
                self.group_decision[inv.engine.hot.group_of[i] as usize]
            };
            match decision {
                Decision::Runs => out.push((item_position(i), node, hot.level, None)),
                Decision::Filtered(k) => {
                    let (reason, detail, live) = retarget(inv, self.group_outcomes[k as usize], i);
                    let deselected = inv.deselect_reasons.get(reason as usize).copied().unwrap_or(false);
                    let record =
                        Record { node, reason, detail, level: hot.level, deselected, live_device_dependent: live };
                    out.push((item_position(i), node, hot.level, Some(record)));
                }
                Decision::Absent | Decision::ByItem | Decision::ByVariant => {}
            }
        }
        for &(at, kind, level) in &self.runnable_placeholders {
            let pos = placeholder_position(at);
            let k = out.partition_point(|(p, ..)| *p < pos);
            out.insert(k, (pos, NodeRef::Placeholder(kind), level, None));
        }
        out
    }

    /// The nodes that execute, in collection order (for runs narrowed to explicit node ids).
    pub fn executable_nodes(&self) -> Vec<NodeRef> {
        let runs = |(_, node, level, record): (u64, NodeRef, u8, Option<Record>)| {
            (record.is_none() && self.selection.contains(level)).then_some(node)
        };
        self.derived().into_iter().filter_map(runs).collect()
    }

    /// All not-run records, in show-skips order: items in collection order,
    /// then pending OpInfo records.
    pub fn records(&self) -> Vec<Record> {
        let mut out = Vec::with_capacity(self.record_count);
        let as_record = |(_, node, level, record): (u64, NodeRef, u8, Option<Record>)| match record {
            Some(r) => Some(r),
            None => (!self.selection.contains(level)).then(|| self.level_record(node, level)),
        };
        let mut derived = self.derived().into_iter().peekable();
        for (rec, &pos) in self.stored_records.iter().zip(&self.stored_positions) {
            while let Some(d) = derived.next_if(|(p, ..)| *p < pos) {
                out.extend(as_record(d));
            }
            out.push(*rec);
        }
        out.extend(derived.filter_map(as_record));
        out
    }

    /// The records of one reason among those decided item by item, in show-skips order:
    /// all of that reason's records for a reason only device facts give (items with device
    /// facts are in no group), without building every record as [`Accounting::records`] does.
    pub fn device_fact_records(&self, reason: &str) -> Vec<Record> {
        self.stored_records.iter().filter(|r| self.reason_name(r.reason) == reason).copied().collect()
    }

    pub(super) fn level_record(&self, node: NodeRef, level: u8) -> Record {
        let (reason, detail) = level_outcome(self.selection, self.level_reasons, level);
        let deselected = self.inventory.deselect_reasons.get(reason as usize).copied().unwrap_or(false);
        Record { node, reason, detail, level, deselected, live_device_dependent: false }
    }

    pub fn reason_name(&self, r: Reason) -> &str {
        self.inventory.reason_name(r)
    }

    /// Full node id of a record.
    pub fn node_id(&self, rec: &Record) -> String {
        self.node_ref_id(rec.node)
    }

    /// Full node id of an item, placeholder or pending record.
    pub fn node_ref_id(&self, node: NodeRef) -> String {
        let inv = self.inventory;
        match node {
            NodeRef::Item(i) => inv.item_id(&inv.items[i as usize]).to_string(),
            NodeRef::Placeholder(k) => inv.item_id(placeholder(inv, k)).to_string(),
            NodeRef::Pending { backward: true, op, dt, .. } => format!(
                "torchcts/opinfo/test_opinfo_backward.py::test_op_backward[manifest-declined-{}-{}]",
                inv.string(op),
                inv.string(dt)
            ),
            NodeRef::Pending { backward: false, cond, op, dt } => format!(
                "torchcts/opinfo/test_opinfo_forward.py::test_op_forward[manifest-declined-{}-{}-{}]",
                inv.string(cond),
                inv.string(op),
                inv.string(dt)
            ),
        }
    }

    /// The operator and dtype a node tests (`None` where it has none: a test of a module, a
    /// placeholder): the OpInfo parameters, else the item's operator and first dtype.
    pub fn op_and_dtype(&self, node: NodeRef) -> (Option<&str>, Option<&str>) {
        let inv = self.inventory;
        let (op, dt) = node_subject(inv, node);
        (op.map(|s| inv.string(s)), dt.map(|s| inv.string(s)))
    }

    /// The semantic level of a node (pending OpInfo records: the OpInfo default).
    pub fn node_level(&self, node: NodeRef) -> u8 {
        let inv = self.inventory;
        match node {
            NodeRef::Item(i) => inv.items.get(i as usize).map_or(0, |it| it.level),
            NodeRef::Placeholder(k) => inv.engine.hot.placeholders[k as usize].level,
            NodeRef::Pending { .. } => inv.opinfo_level,
        }
    }

    /// The node id as show-skips prints it (`nodeid.split('/')[-1]`).
    pub fn printed_id(&self, rec: &Record) -> String {
        if let NodeRef::Item(i) = rec.node {
            return self.inventory.printed_id(&self.inventory.items[i as usize]).to_string();
        }
        let id = self.node_id(rec);
        match id.rfind('/') {
            Some(i) => id[i + 1..].to_string(),
            None => id,
        }
    }
}

impl std::fmt::Debug for Accounting<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Accounting")
            .field("device", &self.device)
            .field("selection", &self.selection)
            .field("collected", &self.collected)
            .field("deselected", &self.deselected)
            .field("included", &self.included)
            .field("records", &self.record_count)
            .finish()
    }
}

/// The (operator, dtype) string ids a node tests: the OpInfo parameters, else the item's
/// operator and first dtype; a pending record's own; none for a placeholder.
pub(crate) fn node_subject(inv: &Inventory, node: NodeRef) -> (Option<StrId>, Option<StrId>) {
    use crate::inventory::OiParam;
    let item = match node {
        NodeRef::Item(i) => inv.items.get(i as usize),
        NodeRef::Pending { op, dt, .. } => return (Some(op), Some(dt)),
        NodeRef::Placeholder(_) => None,
    };
    let Some(item) = item else { return (None, None) };
    match &item.opinfo {
        Some(OiParam::Forward { op, dt, .. }) | Some(OiParam::Backward { op, dt, .. }) => (Some(*op), Some(*dt)),
        Some(OiParam::Errors { op }) => (Some(*op), None),
        None => (item.op, item.d1.map(|d| d.dt)),
    }
}
