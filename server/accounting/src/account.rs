//! The accounting: what `torchcts show-skips` reports for one manifest, device
//! and level selection, computed from the inventory.
//!
//! One pass over the items of the maximal collection, in collection order:
//! manifest-generated parameter sets (OpInfo forward/backward/errors, generated
//! foreach/fused) are first narrowed to the items the manifest would generate
//! (with the placeholder item pytest gets when a set is empty), then every item
//! goes through the rule chain of `pytest_collection_modifyitems` (first reason
//! wins, except that the dtype rule overwrites the backend gate). OpInfo records
//! that never become items ("pending" records) follow, backward before forward.
//!
//! Details are not formatted during the pass: a [`Record`] keeps the facts and
//! [`Accounting::detail`] formats the text on demand.

use std::collections::HashMap;

use crate::facts::{canonical_dtype, LevelSelection, ManifestFacts, Mode, PyValue};
use crate::hot::{HotItem, Presence, NO_GROUP};
use crate::inventory::{
    rare, ContractMode, DevRule, DtCode, DtypeParam, Generated, Inventory, Item, OracleOutcome, Rd, Reason, RegexEntry,
    Str, CUSTOM_DEVICE_PLACEHOLDER, NO_DTYPE_SLOT,
};
use crate::pyfmt::{fmt_g, parse_float};

/// Where a record comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeRef {
    /// An item of the inventory.
    Item(u32),
    /// The placeholder pytest collects for an empty generated parameter set.
    Placeholder(PlaceholderKind),
    /// An OpInfo record that is not a pytest item (declined or CPU-contract
    /// rejected at import time).
    Pending { backward: bool, cond: Str, op: Str, dt: Str },
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
    pub dt: Str,
    pub kind: LabelKind,
}

/// The ingredients of a detail text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Detail {
    /// Recorded text (CPU contracts, generated preflight, device rules).
    Text(Str),
    /// Recorded device text in which the custom-device placeholder name is
    /// replaced by the actual device name.
    DeviceText(Str),
    NotListed(DtypeLabel),
    DeclaredUnsupported(DtypeLabel),
    RegexFiltered {
        label: DtypeLabel,
        op: Option<Str>,
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
    OpExcluded(Str),
    ContainerFormat(Str),
    ContainerDecoder(Str),
    MaxTensorSize(f64),
    DeviceMemory(f64),
    Capability(&'static str),
    GeneratedNoDtypes(Str),
    GeneratedCpuContract(Str),
    GeneratedShape(Str),
    OomNotRecoverable,
    PathShapeEmpty,
    OpinfoEmpty,
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
    stored_records: Vec<Record>,
    stored_positions: Vec<u64>,
    /// Items decided one by one; the others follow their group's decision.
    visited: Bits,
    /// Per item group: its decision in this accounting, and the filtered outcomes.
    group_decision: Vec<Decision>,
    group_outcomes: Vec<(Reason, Detail, bool)>,
    /// Visited items with no reason (they run where their level is selected).
    runnable_items: Bits,
    /// Placeholders with no reason: (item index they come before, kind, level).
    runnable_placeholders: Vec<(usize, PlaceholderKind, u8)>,
    /// (reason, count) in first-seen order.
    pub reason_counts: Vec<(Reason, usize)>,
    /// Levels 1..=8.
    pub levels: [LevelCounts; 8],
    pub problems: Vec<AccountingProblem>,
    /// Number of records whose outcome depends on the live device.
    pub live_device_dependent: usize,
    /// Things the inventory cannot model for this manifest (custom_test_dirs, ...).
    pub not_modelled: Vec<String>,
    facts_repr: FactsForText,
    /// (semantic_level_gt_requested, semantic_level_out_of_range)
    level_reasons: (Reason, Reason),
}

#[derive(Debug, Clone, Default)]
struct FactsForText {
    device_count: String,
    max_level: u8,
    label: String,
    patterns: Vec<String>,
    values: Vec<String>,
}

impl<'a> Accounting<'a> {
    /// What is not stored, in collection order: nodes with no reason (`None`,
    /// they run where their level is selected) and items of filtered groups
    /// (`Some(record)`), with their positions.
    fn derived(&self) -> Vec<(u64, NodeRef, u8, Option<Record>)> {
        let inv = self.inventory;
        let mut out = Vec::new();
        for (i, hot) in inv.hot.items.iter().enumerate() {
            let node = NodeRef::Item(i as u32);
            let decision = if self.visited.get(i) {
                if !self.runnable_items.get(i) {
                    continue;
                }
                Decision::Runs
            } else {
                self.group_decision[inv.hot.group_of[i] as usize]
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

    fn level_record(&self, node: NodeRef, level: u8) -> Record {
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

    /// The detail text, as torchcts writes it.
    pub fn detail(&self, rec: &Record) -> String {
        let text = self.detail_text(rec);
        // Details that quote the node id (backend gates) quote it as the run roots it.
        let prefix = &self.layout.node_prefix;
        if !prefix.is_empty() && matches!(rec.detail, Detail::Text(_) | Detail::DeviceText(_)) {
            let id = self.node_id(rec);
            if text.starts_with(&id) {
                return format!("{prefix}{text}");
            }
        }
        text
    }

    fn detail_text(&self, rec: &Record) -> String {
        let inv = self.inventory;
        let label = |l: &DtypeLabel| -> String {
            let dt = inv.string(l.dt);
            match l.kind {
                LabelKind::Plain => dt.to_string(),
                LabelKind::Autocast => format!("{dt} (autocast_dtype)"),
                LabelKind::Src => format!("{dt} (src_dtype)"),
                LabelKind::Dst => format!("{dt} (dst_dtype)"),
                LabelKind::Fixed => format!("{dt} (fixed dtype)"),
                LabelKind::Gradcheck => "torch.float64 (required for gradcheck)".to_string(),
            }
        };
        match &rec.detail {
            Detail::Text(s) => inv.string(*s).to_string(),
            Detail::DeviceText(s) => {
                let t = inv.string(*s);
                if self.device.class == CUSTOM_DEVICE_PLACEHOLDER && self.device.device != CUSTOM_DEVICE_PLACEHOLDER {
                    t.replace(CUSTOM_DEVICE_PLACEHOLDER, &self.device.device)
                } else {
                    t.to_string()
                }
            }
            Detail::NotListed(l) => format!("{} not in supported_dtypes", label(l)),
            Detail::DeclaredUnsupported(l) => format!("{} is declared unsupported in supported_dtypes", label(l)),
            Detail::RegexFiltered { label: l, op, pattern } => {
                let op_detail = match op {
                    Some(op) if !inv.string(*op).is_empty() => format!("op {} ", inv.string(*op)),
                    _ => String::new(),
                };
                format!(
                    "{op_detail}filtered out by {} regex: {}",
                    label(l),
                    self.facts_repr.patterns[*pattern as usize]
                )
            }
            Detail::UnsupportedValue { label: l, value } => format!(
                "{} has unsupported manifest filter value {}",
                label(l),
                self.facts_repr.values[*value as usize]
            ),
            Detail::MissingCapabilities { node, mask } => {
                let requires = match node {
                    NodeRef::Item(i) => &inv.items[*i as usize].requires,
                    NodeRef::Placeholder(k) => &placeholder(inv, *k).requires,
                    NodeRef::Pending { .. } => return String::new(),
                };
                let names: Vec<&str> = requires
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1u64 << i) != 0)
                    .map(|(_, c)| inv.string(*c))
                    .collect();
                format!("requires capabilities: {}", names.join(", "))
            }
            Detail::DeviceCount => {
                format!("requires device_count>=2, runtime exposes {}", self.facts_repr.device_count)
            }
            Detail::OpExcluded(op) => format!("{} is in skip_ops list", inv.string(*op)),
            Detail::ContainerFormat(p) => {
                format!("Container format '{}' not in supported_container_formats", inv.string(*p))
            }
            Detail::ContainerDecoder(p) => {
                format!("No custom decoder declared for container format '{}'", inv.string(*p))
            }
            Detail::MaxTensorSize(v) => format!("Max tensor size is limited to {}MB by resource limits.", fmt_g(*v)),
            Detail::DeviceMemory(v) => {
                format!("Device memory is too small ({}GB) for >2GB tensor stress test.", fmt_g(*v))
            }
            Detail::Capability(c) => format!("requires capabilities: {c}"),
            Detail::GeneratedNoDtypes(n) => {
                format!("No manifest-enabled dtypes selected for generated {}", inv.string(*n))
            }
            Detail::GeneratedCpuContract(n) => format!(
                "cpu_contract_unsupported: no selected dtype is executable under the PyTorch CPU contract for {}",
                inv.string(*n)
            ),
            Detail::GeneratedShape(n) => {
                format!("coverage_strategy_pending: no manifest-enabled shape cases for {}", inv.string(*n))
            }
            Detail::OomNotRecoverable => "OOM recovery not marked as recoverable in manifest".to_string(),
            Detail::PathShapeEmpty => {
                "no tracked path-shape rows matched this module's runner and selectors".to_string()
            }
            Detail::OpinfoEmpty => "No OpInfo tests matched the manifest filters.".to_string(),
            Detail::LevelAbove(l) => {
                format!("semantic_level={l} exceeds requested level {}", self.facts_repr.max_level)
            }
            Detail::LevelOutside(l) => format!("semantic_level={l} is outside {}", self.facts_repr.label),
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

fn placeholder_hot(inv: &Inventory, k: PlaceholderKind) -> &HotItem {
    &inv.hot.placeholders[k as usize]
}

fn placeholder(inv: &Inventory, k: PlaceholderKind) -> &Item {
    match k {
        PlaceholderKind::OpinfoForward => &inv.placeholders.forward,
        PlaceholderKind::OpinfoBackward => &inv.placeholders.backward,
        PlaceholderKind::OpinfoErrors => &inv.placeholders.errors,
        PlaceholderKind::Foreach => &inv.placeholders.foreach,
    }
}

/// The disposition of one dtype under `supported_dtypes`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Filter {
    NotListed,
    True,
    False,
    Regex(u32),
    Unsupported(u32),
}

/// What a capability set decides (step 4 of the chain).
#[derive(Debug, Clone, Copy)]
enum Requires {
    Met,
    /// Bit i set for a missing `requires[i]`.
    Missing(u64),
    DeviceCount,
}

/// `capabilities.ieee754`: True (default), a regex, a list of regexes, or off.
enum Ieee754 {
    On,
    Off,
    Patterns(Vec<u32>),
}

pub(crate) struct Ctx<'a, 'f> {
    ieee754: Ieee754,
    /// What the dtype keys resolve to.
    keys: DtypeKeys,
    /// [`Ctx::keys_allow_every_name`], once known.
    keys_allow: Option<Option<bool>>,
    inv: &'a Inventory,
    facts: &'f ManifestFacts,
    class: u8,
    class_is_cpu: bool,
    class_is_custom: bool,
    selection: LevelSelection,
    /// `skip_ops` names that are strings of the inventory, by canonical id.
    skip_ops: Bits,
    /// Per inventory dtype position ([`Inventory::dtype_slot`]).
    filters: Vec<Option<Filter>>,
    cap_memo: Vec<u8>,
    /// Outcome of each interned capability set (`HotTable::requires_sets`).
    requires_memo: Vec<Option<Requires>>,
    /// Outcome of each generated entry's collection preflight.
    /// (0: not yet; k: `generated_outcomes[k - 1]`): zeroed memory costs nothing to set up,
    /// and a context is set up per accounting and per what-if question.
    generated_memo: Vec<u32>,
    generated_outcomes: Vec<Outcome>,
    /// Regex entries taken out of the inventory cache for this call, by pattern id. The
    /// cache is locked only to take and to give back: accountings on one inventory (the
    /// keystroke's, a hover's what-if, the inlay hints') run side by side.
    entries: Vec<Option<(String, RegexEntry)>>,
    patterns: Vec<String>,
    pattern_index: HashMap<String, u32>,
    values: Vec<String>,
    problems: Vec<AccountingProblem>,
    device_count: f64,
    r: Reasons,
}

#[derive(Clone, Copy)]
pub(crate) struct Reasons {
    not_listed: Reason,
    not_supported: Reason,
    regex: Reason,
    contract_unsupported: Reason,
    capability: Reason,
    device_count: Reason,
    op_excluded: Reason,
    container: Reason,
    decoder: Reason,
    resource: Reason,
    gen_no_dtypes: Reason,
    strategy_pending: Reason,
    oom: Reason,
    path_shape: Reason,
    opinfo_empty: Reason,
    level_gt: Reason,
    level_out: Reason,
    backend_not_available: Option<Reason>,
}

impl Reasons {
    fn of(inv: &Inventory) -> Reasons {
        let rid = |s: &str| inv.reason_id(s);
        Reasons {
            not_listed: rid("dtype_not_listed"),
            not_supported: rid("dtype_not_supported"),
            regex: rid("dtype_regex_filtered"),
            contract_unsupported: rid("cpu_contract_unsupported"),
            capability: rid("capability_not_declared"),
            device_count: rid("device_count"),
            op_excluded: rid("op_excluded"),
            container: rid("container_format_not_supported"),
            decoder: rid("custom_container_decoder_not_declared"),
            resource: rid("resource_limit"),
            gen_no_dtypes: rid("generated_no_manifest_enabled_dtypes"),
            strategy_pending: rid("coverage_strategy_pending"),
            oom: rid("oom_not_recoverable"),
            path_shape: rid("path_shape_no_selected_cases"),
            opinfo_empty: rid("opinfo_no_selected_cases"),
            level_gt: rid("semantic_level_gt_requested"),
            level_out: rid("semantic_level_out_of_range"),
            backend_not_available: inv.reason_index.get("backend_not_available").copied(),
        }
    }
}

impl<'a, 'f> Ctx<'a, 'f> {
    fn text(&self, s: Str) -> &'a str {
        self.inv.string(s)
    }

    fn pattern_id(&mut self, p: &str) -> u32 {
        if let Some(&i) = self.pattern_index.get(p) {
            return i;
        }
        let i = self.patterns.len() as u32;
        self.patterns.push(p.to_string());
        self.pattern_index.insert(p.to_string(), i);
        i
    }

    /// `re.search(pattern, text)`, memoised per (pattern, interned string)
    /// across calls in the inventory's cache.
    #[inline]
    fn search(&mut self, pattern: u32, text: Str) -> bool {
        if let Some(Some((_, entry))) = self.entries.get(pattern as usize) {
            if !entry.gave_up && entry.compiled.is_ok() {
                match entry.memo[text as usize] {
                    0 => {}
                    slot => return slot == 2,
                }
            }
        }
        self.search_uncached(pattern, text)
    }

    fn search_uncached(&mut self, pattern: u32, text: Str) -> bool {
        let pi = pattern as usize;
        if self.entries.len() <= pi {
            self.entries.resize_with(pi + 1, || None);
        }
        if self.entries[pi].is_none() {
            let key = self.patterns[pi].clone();
            let cached = self.inv.regex_cache.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
            let entry = match cached {
                Some(e) => e,
                None => {
                    let compiled = pyregex::compile(&key).map(|(p, _)| p).map_err(|(e, _)| e.python_text(&key));
                    RegexEntry {
                        compiled,
                        memo: vec![0; self.inv.strings.len()],
                        steps_left: crate::inventory::REGEX_STEPS_PER_PATTERN,
                        gave_up: false,
                    }
                }
            };
            if let Err(msg) = &entry.compiled {
                self.problems.push(AccountingProblem {
                    message: format!("re.error for {key:?}: {msg} (the real collection stops with this error)"),
                });
            }
            self.entries[pi] = Some((key, entry));
        }
        let (key, entry) = self.entries[pi].as_mut().expect("filled above");
        if entry.gave_up {
            return false;
        }
        match &entry.compiled {
            Err(_) => false,
            Ok(p) => {
                let slot = &mut entry.memo[text as usize];
                if *slot == 0 {
                    let mut steps = entry.steps_left.min(crate::inventory::REGEX_STEPS_PER_NAME);
                    let before = steps;
                    let outcome = p.search_within(&self.inv.strings[text as usize], &mut steps);
                    entry.steps_left -= before - steps;
                    if outcome.is_none() {
                        entry.gave_up = true;
                        let message = format!(
                            "the regex {key:?} backtracks too much to evaluate on operator names (Python's re.search would take very long too); counted as matching nothing"
                        );
                        self.problems.push(AccountingProblem { message });
                        return false;
                    }
                    *slot = if outcome == Some(true) { 2 } else { 1 };
                }
                *slot == 2
            }
        }
    }

    /// Give the regex entries used by this call back to the inventory cache.
    fn return_regex_entries(&mut self) {
        let mut cache = self.inv.regex_cache.lock().unwrap_or_else(|e| e.into_inner());
        for (key, entry) in self.entries.drain(..).flatten() {
            cache.insert(key, entry);
        }
    }

    /// `dt in sd` (dtype object) then `dt_str in sd`.
    #[inline]
    fn filter(&mut self, dt: Str) -> Filter {
        let slot = self.inv.dtype_slot.get(dt as usize).copied().unwrap_or(NO_DTYPE_SLOT);
        match self.filters.get(slot as usize) {
            Some(Some(f)) => *f,
            _ => self.filter_uncached(dt),
        }
    }

    fn filter_uncached(&mut self, dt: Str) -> Filter {
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
    fn allowed(&mut self, dt: Str, op: Option<Str>) -> bool {
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
    fn disposition(&mut self, dt: Str, op: Option<Str>, kind: LabelKind) -> Option<(Reason, Detail)> {
        if self.allowed(dt, op) {
            return None;
        }
        let label = DtypeLabel { dt, kind };
        match self.filter(dt) {
            Filter::True => None,
            Filter::NotListed => Some((self.r.not_listed, Detail::NotListed(label))),
            Filter::False => Some((self.r.not_supported, Detail::DeclaredUnsupported(label))),
            Filter::Unsupported(v) => Some((self.r.not_supported, Detail::UnsupportedValue { label, value: v })),
            Filter::Regex(p) => Some((self.r.regex, Detail::RegexFiltered { label, op, pattern: p })),
        }
    }

    /// `caps.get(name, False)` truthiness, memoised per interned name.
    fn cap_declared(&mut self, name: Str) -> bool {
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
    fn requires(&mut self, set: u16) -> Requires {
        match self.requires_memo[set as usize] {
            Some(r) => r,
            None => self.requires_uncached(set),
        }
    }

    fn requires_uncached(&mut self, set: u16) -> Requires {
        let inv = self.inv;
        let caps = &inv.hot.requires_sets[set as usize];
        let mut mask = 0u64;
        for (i, &c) in caps.iter().enumerate().take(64) {
            if c != inv.s.multi_device && !self.cap_declared(c) {
                mask |= 1 << i;
            }
        }
        let r = if mask != 0 {
            Requires::Missing(mask)
        } else if caps.contains(&inv.s.multi_device) && self.device_count < 2.0 {
            Requires::DeviceCount
        } else {
            Requires::Met
        };
        self.requires_memo[set as usize] = Some(r);
        r
    }

    fn cap(&self, name: &str) -> Option<&'f PyValue> {
        self.facts.capability(name)
    }

    /// `_ieee754_enabled_for_op` (OpInfo) / `ieee754_enabled` (generated),
    /// after the op-specific exclusions.
    fn ieee754(&mut self, op: Str) -> bool {
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
    fn skip_op(&self, op: Str) -> bool {
        self.inv.canonical_str.get(op as usize).is_some_and(|&c| self.skip_ops.get(c as usize))
    }

    fn sparse_ok(&self) -> bool {
        self.cap("sparse").map(PyValue::truthy).unwrap_or(false)
    }

    fn is_fc(&self, dt: Str) -> bool {
        self.inv.fc_by_str.get(dt as usize).copied().unwrap_or(0) == 1
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

fn first_numeric(v: Option<&PyValue>, default: Option<f64>) -> Option<f64> {
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

fn py_number(v: &PyValue) -> Option<f64> {
    match v {
        PyValue::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        PyValue::Int(i) => Some(*i as f64),
        PyValue::Float(f) => Some(*f),
        _ => None,
    }
}

/// Resolve a device name to the device class whose facts apply.
pub fn resolve_device(inv: &Inventory, device: &str) -> DeviceResolution {
    if inv.devices.iter().any(|d| d.name == device) {
        return DeviceResolution { device: device.into(), class: device.into(), assumed: false };
    }
    if let Some((base, idx)) = device.split_once(':') {
        if !idx.is_empty() && idx.chars().all(|c| c.is_ascii_digit()) && inv.devices.iter().any(|d| d.name == base) {
            return DeviceResolution { device: device.into(), class: base.into(), assumed: true };
        }
    }
    DeviceResolution { device: device.into(), class: CUSTOM_DEVICE_PLACEHOLDER.into(), assumed: true }
}

/// Account for `facts` on `device` with `selection`: what show-skips reports.
pub fn account<'a>(
    inv: &'a Inventory,
    facts: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
) -> Accounting<'a> {
    account_with(inv, facts, device, selection, Grouping::Groups, false).0
}

/// [`account`], with its counts also kept per unit for what-if questions on the same
/// manifest ([`crate::WhatIfs::from_kept`]): a little more work per accounting, and none
/// of it again when the editor then asks its questions.
pub fn account_keeping_units<'a>(
    inv: &'a Inventory,
    facts: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
) -> (Accounting<'a>, KeptCounts) {
    let (accounting, kept) = account_with(inv, facts, device, selection, Grouping::Groups, true);
    let kept = kept.unwrap_or_else(|| KeptCounts {
        levels: accounting.levels,
        units: UnitCounts::new(inv),
        keys: DtypeKeys::of(inv, facts),
    });
    (accounting, kept)
}

/// An accounting's counts kept per unit ([`account_keeping_units`]).
#[derive(Debug, Clone, PartialEq)]
pub struct KeptCounts {
    pub(crate) levels: [LevelCounts; 8],
    pub(crate) units: UnitCounts,
    pub(crate) keys: DtypeKeys,
}

/// Whether items are decided per group (the fast path) or one by one (the
/// reference the fast path is tested against).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grouping {
    Groups,
    #[cfg_attr(not(test), allow(dead_code))]
    ItemByItem,
}

fn account_with<'a>(
    inv: &'a Inventory,
    facts: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
    grouping: Grouping,
    keep_units: bool,
) -> (Accounting<'a>, Option<KeptCounts>) {
    let (mut ctx, resolution) = new_context(inv, facts, device, selection, None);
    let r = ctx.r;
    let max_level = selection.max_level();
    let mut tally = Tally::new(inv.items.len(), inv.reasons.len());
    if keep_units {
        tally.units = Some(UnitCounts::new(inv));
    }
    let (mut tally, pass) = run_phases_into(&mut ctx, tally, grouping, None);
    let kept = tally.units.take().map(|units| KeptCounts { levels: tally.levels, units, keys: ctx.keys.clone() });
    let GroupPass { visited, group_decision, group_outcomes, .. } = pass;

    // Reasons in the order show-skips first meets them.
    let mut seen: Vec<(u64, Reason, usize)> = tally
        .reasons
        .iter()
        .enumerate()
        .filter(|(_, (n, _))| *n > 0)
        .map(|(r, &(n, first))| (first, r as Reason, n))
        .collect();
    seen.sort_unstable();
    let reason_counts = seen.into_iter().map(|(_, r, n)| (r, n)).collect();
    let mut not_modelled = Vec::new();
    if facts.has_custom_test_dirs {
        not_modelled.push(
            "custom_test_dirs: user test directories are collected by the real tool but are not in the inventory"
                .into(),
        );
    }
    if resolution.assumed {
        not_modelled.push(format!(
            "device {:?} has no recorded facts; device rules assume the behaviour of {:?}",
            resolution.device, resolution.class
        ));
    }
    let facts_repr = FactsForText {
        device_count: match &facts.device_count {
            None => "1".to_string(),
            Some(v) => v.str_(),
        },
        max_level,
        label: selection.label(),
        patterns: std::mem::take(&mut ctx.patterns),
        values: std::mem::take(&mut ctx.values),
    };
    ctx.return_regex_entries();
    let problems = std::mem::take(&mut ctx.problems);
    drop(ctx);
    let accounting = Accounting {
        inventory: inv,
        layout: facts.layout.clone(),
        device: resolution,
        selection,
        collected: tally.collected,
        deselected: tally.deselected,
        included: tally.collected - tally.deselected,
        executable: tally.executable,
        record_count: tally.record_count,
        stored_records: tally.stored_records,
        stored_positions: tally.stored_positions,
        visited,
        group_decision,
        group_outcomes,
        runnable_items: tally.runnable_items,
        runnable_placeholders: tally.runnable_placeholders,
        reason_counts,
        levels: tally.levels,
        problems,
        live_device_dependent: tally.live_device_dependent,
        not_modelled,
        facts_repr,
        level_reasons: (r.level_gt, r.level_out),
    };
    (accounting, kept)
}

/// The phases of an accounting over the whole suite, or over `scope` only.
fn run_phases(ctx: &mut Ctx, grouping: Grouping, scope: Option<&Scope>) -> (Tally, GroupPass) {
    run_phases_into(ctx, Tally::new(ctx.inv.items.len(), ctx.inv.reasons.len()), grouping, scope)
}

fn run_phases_into(ctx: &mut Ctx, mut tally: Tally, grouping: Grouping, scope: Option<&Scope>) -> (Tally, GroupPass) {
    let placeholder_at = empty_parameter_sets(ctx);
    let mut pass = decide_groups(ctx, &mut tally, grouping, scope);
    walk_items(ctx, &mut tally, &mut pass, &placeholder_at);
    pending_opinfo_records(ctx, &mut tally, scope);
    (tally, pass)
}

/// Part of the suite: the item groups, ungrouped items and dtypes of pending OpInfo
/// records a what-if question touches (`what_if.rs`). Placeholders are always in it.
pub(crate) struct Scope<'d> {
    /// Selected groups, by index.
    pub groups: Bits,
    /// Selected ungrouped items and every member of the selected groups.
    pub items: Bits,
    /// Per dtype (canonical string id) whose pending OpInfo records are in scope: those records.
    pub pending: Vec<(Str, &'d [PendingRef])>,
}

/// Run `f` with the rule chain's context for `facts`; `keys`, when given, are
/// [`DtypeKeys::of`] these facts.
pub(crate) fn with_context<R>(
    inv: &Inventory,
    facts: &ManifestFacts,
    device: &str,
    selection: LevelSelection,
    keys: Option<&DtypeKeys>,
    f: impl FnOnce(&mut Ctx) -> R,
) -> R {
    let (mut ctx, _) = new_context(inv, facts, device, selection, keys);
    let out = f(&mut ctx);
    ctx.return_regex_entries();
    out
}

/// Per-level counts of the nodes in `scope` alone, as [`account`] counts them.
pub(crate) fn scoped_levels(ctx: &mut Ctx, scope: &Scope) -> [LevelCounts; 8] {
    run_phases(ctx, Grouping::Groups, Some(scope)).0.levels
}

/// The per-call context: device class, reason ids, `skip_ops`, the dtype keys and the
/// `ieee754` capability, resolved once for the rule chain.
fn new_context<'a, 'f>(
    inv: &'a Inventory,
    facts: &'f ManifestFacts,
    device: &str,
    selection: LevelSelection,
    keys: Option<&DtypeKeys>,
) -> (Ctx<'a, 'f>, DeviceResolution) {
    let resolution = resolve_device(inv, device);
    let class =
        inv.devices.iter().position(|d| d.name == resolution.class).unwrap_or(inv.custom_device_class as usize) as u8;
    let r = *inv.chain_reasons.get_or_init(|| Reasons::of(inv));
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
        requires_memo: vec![None; inv.hot.requires_sets.len()],
        generated_memo: vec![0; inv.generated.len()],
        generated_outcomes: Vec::new(),
        entries: Vec::new(),
        patterns: Vec::new(),
        pattern_index: HashMap::new(),
        values: Vec::new(),
        problems,
        device_count,
        r,
        ieee754: Ieee754::Off,
        keys: match keys {
            Some(keys) => keys.clone(),
            None => DtypeKeys::of(inv, facts),
        },
        keys_allow: None,
    };
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
    effective: Vec<Str>,
    /// `sample_manifest_dtype_items`: inventory dtype positions, sorted by key text.
    base_items: Vec<usize>,
    /// `base_items` as a set (positions under 64).
    base_mask: u64,
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

/// Phase 1. Manifest-generated parameter sets: which ones become empty (and get pytest's
/// placeholder item), decided from the tables, not the items. Returns (item index before
/// which the placeholder is collected, kind), at most four.
fn empty_parameter_sets(ctx: &mut Ctx) -> Vec<(usize, PlaceholderKind)> {
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
        inv.function_first.contains_key(&inv.s.fwd_fn),
        inv.function_first.contains_key(&inv.s.bwd_fn),
        inv.function_first.contains_key(&inv.s.err_fn),
        !inv.foreach_pairs.is_empty(),
    );
    // At most four placeholders: (item index before which it is collected, kind).
    let mut placeholder_at: Vec<(usize, PlaceholderKind)> = Vec::new();
    let mut add_placeholder = |func: Str, kind: PlaceholderKind| {
        if let Some(&i) = inv.function_first.get(&func) {
            placeholder_at.push((i, kind));
        }
    };
    if has_bwd && !any_bwd {
        add_placeholder(inv.s.bwd_fn, PlaceholderKind::OpinfoBackward);
    }
    if has_err && !any_err {
        add_placeholder(inv.s.err_fn, PlaceholderKind::OpinfoErrors);
    }
    if has_fwd && !any_fwd {
        add_placeholder(inv.s.fwd_fn, PlaceholderKind::OpinfoForward);
    }
    if has_fe && !any_fe {
        add_placeholder(inv.s.foreach_fn, PlaceholderKind::Foreach);
    }

    placeholder_at
}

/// What phase 2 decided per item group before visiting items.
struct GroupPass {
    /// Items decided one by one because their operator is in `skip_ops`.
    by_item: Bits,
    /// Items the walk visits: by-item, ungrouped and op-dependent group members.
    visited: Bits,
    group_decision: Vec<Decision>,
    group_outcomes: Vec<(Reason, Detail, bool)>,
    /// Whether some dtype key is a regex (generated entry names are then matched).
    regex_keys: bool,
}

/// Phase 2a. Each group is decided once where the operator does not matter; its items are
/// counted in bulk and not visited (their records are derived on demand).
fn decide_groups(ctx: &mut Ctx, tally: &mut Tally, grouping: Grouping, scope: Option<&Scope>) -> GroupPass {
    let (inv, facts) = (ctx.inv, ctx.facts);
    let in_scope = |i: usize| scope.is_none_or(|s| s.items.get(i));
    // Items whose operator is in skip_ops are decided one by one.
    let mut by_item = Bits::new(inv.items.len());
    for id in ctx.skip_ops.iter() {
        for &i in inv.hot.items_by_op.get(&(id as Str)).into_iter().flatten() {
            if in_scope(i as usize) {
                by_item.set(i as usize);
            }
        }
    }
    let ieee754_patterns = matches!(ctx.ieee754, Ieee754::Patterns(_));
    let skip_ops_used = !facts.skip_ops.is_empty();
    let regex_keys = (0..ctx.keys.effective.len()).any(|k| {
        let dt = ctx.keys.effective[k];
        matches!(ctx.filter(dt), Filter::Regex(_))
    });
    let mut visited = by_item.clone();
    for &i in inv.hot.ungrouped.iter().filter(|&&i| in_scope(i as usize)) {
        visited.set(i as usize);
    }
    let mut group_decision = Vec::with_capacity(inv.hot.groups.len());
    let mut group_outcomes: Vec<(Reason, Detail, bool)> = Vec::new();
    for (g, info) in inv.hot.groups.iter().enumerate() {
        if scope.is_some_and(|s| !s.groups.get(g)) {
            group_decision.push(Decision::Absent);
            continue;
        }
        let members = inv.hot.members(g);
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
        let hot = &inv.hot.items[rep];
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
fn walk_items(ctx: &mut Ctx, tally: &mut Tally, pass: &mut GroupPass, placeholder_at: &[(usize, PlaceholderKind)]) {
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
    let mut variant_slot: Vec<u32> = vec![0; inv.hot.groups.len()];
    let mut variant_decision: Vec<[Option<Decision>; 8]> = Vec::new();
    for i in visited.iter() {
        add_placeholders_before(ctx, tally, i);
        let (node, hot) = (NodeRef::Item(i as u32), &inv.hot.items[i]);
        let g = inv.hot.group_of[i] as usize;
        let mut decision = if g != NO_GROUP as usize && !by_item.get(i) { group_decision[g] } else { Decision::ByItem };
        if decision == Decision::ByVariant {
            let info = inv.hot.groups[g];
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
fn pending_opinfo_records(ctx: &mut Ctx, tally: &mut Tally, scope: Option<&Scope>) {
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

/// One OpInfo record of the pending phase: a dtype of an operator's table.
#[derive(Clone, Copy)]
pub(crate) enum PendingRef {
    Backward { op: u32, dtype: u32 },
    Forward { op: u32, dtype: u32 },
}

impl PendingRef {
    /// Every record of the pending phase, with its dtype (not canonical).
    pub(crate) fn all(inv: &Inventory) -> impl Iterator<Item = (Str, PendingRef)> + '_ {
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

fn backward_record(ctx: &mut Ctx, tally: &mut Tally, op: usize, dtype: usize) {
    let inv = ctx.inv;
    let b = &inv.backward[op];
    if b.jiterator || !b.eligible || ctx.skip_op(b.op) || (b.sparse && !ctx.sparse_ok()) {
        return;
    }
    let (dt, contract) = b.dtypes[dtype];
    let rec = match ctx.disposition(dt, Some(b.op), LabelKind::Plain) {
        None => contract.map(|c| (c.reason, Detail::Text(c.detail))),
        Some((reason, detail)) if reason != ctx.r.not_listed => Some((reason, detail)),
        Some(_) => None,
    };
    if let Some((reason, detail)) = rec {
        tally.add_pending(
            inv,
            Record {
                node: NodeRef::Pending { backward: true, cond: inv.s.clean, op: b.op, dt },
                reason,
                detail,
                level: inv.opinfo_level,
                deselected: false,
                live_device_dependent: false,
            },
        );
    }
}

fn forward_records(ctx: &mut Ctx, tally: &mut Tally, op: usize, dtype: usize) {
    let inv = ctx.inv;
    let f = &inv.forward[op];
    if f.jiterator || ctx.skip_op(f.op) || (f.sparse && !ctx.sparse_ok()) {
        return;
    }
    let (dt, fc, contract) = f.dtypes[dtype];
    let mut push = |cond: Str, reason: Reason, detail: Detail| {
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
                push(inv.s.clean, c.reason, Detail::Text(c.detail));
            }
        }
        Some((reason, detail)) if reason != ctx.r.not_listed => {
            let ieee = fc && f.ieee_ok && ctx.ieee754(f.op);
            push(inv.s.clean, reason, detail);
            if ieee {
                push(inv.s.has_nan, reason, detail);
                push(inv.s.has_inf, reason, detail);
            }
        }
        Some(_) => {}
    }
}

/// Whether an item exists for this manifest: items of manifest-generated
/// parameter sets exist only where the manifest generates them.
fn present(ctx: &mut Ctx, hot: &HotItem) -> bool {
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

type Outcome = Option<(Reason, Detail, bool)>;

/// How an item is decided. Small on purpose: copying whole outcomes per item
/// through the stack cost more than deciding them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Decision {
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
fn retarget(inv: &Inventory, (reason, mut detail, live): (Reason, Detail, bool), i: usize) -> (Reason, Detail, bool) {
    match &mut detail {
        Detail::MissingCapabilities { node, .. } => *node = NodeRef::Item(i as u32),
        Detail::RegexFiltered { op, .. } => *op = inv.hot.items[i].op,
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
fn decide(evaluated: Option<Outcome>, outcomes: &mut Vec<(Reason, Detail, bool)>) -> Decision {
    match evaluated {
        None => Decision::Absent,
        Some(None) => Decision::Runs,
        Some(Some(o)) => {
            outcomes.push(o);
            Decision::Filtered(outcomes.len() as u32 - 1)
        }
    }
}

/// A set of indices.
#[derive(Clone)]
pub(crate) struct Bits(Vec<u64>);

impl Bits {
    pub fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.0[i / 64] & (1u64 << (i % 64)) != 0
    }

    #[inline]
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1u64 << (i % 64);
    }

    /// Set indices, ascending.
    pub(crate) fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(w * 64 + b)
            })
        })
    }
}

/// The index of a semantic level (1 to 8) in per-level arrays.
fn level_index(level: u8) -> usize {
    (level.clamp(1, 8) - 1) as usize
}

/// Position in collection order of an item, and of a placeholder collected
/// before item `at`; pending OpInfo records come after all of them.
fn item_position(i: usize) -> u64 {
    2 * i as u64 + 1
}

fn placeholder_position(at: usize) -> u64 {
    2 * at as u64
}

const PENDING_POSITION: u64 = 1 << 40;

/// The level rule's reason and detail for a node with no other reason whose
/// level is not selected.
fn level_outcome(selection: LevelSelection, (level_gt, level_out): (Reason, Reason), level: u8) -> (Reason, Detail) {
    let (mode, _, max_level) = selection.normalized();
    if mode == Mode::Cumulative && level > max_level {
        (level_gt, Detail::LevelAbove(level))
    } else {
        (level_out, Detail::LevelOutside(level))
    }
}

/// The counts and records of the accounting.
struct Tally {
    stored_records: Vec<Record>,
    stored_positions: Vec<u64>,
    runnable_items: Bits,
    runnable_placeholders: Vec<(usize, PlaceholderKind, u8)>,
    record_count: usize,
    collected: usize,
    deselected: usize,
    executable: usize,
    live_device_dependent: usize,
    levels: [LevelCounts; 8],
    /// Per reason: number of records and position of the first.
    reasons: Vec<(usize, u64)>,
    pending: u64,
    /// Per-unit counts, kept only when asked ([`account_keeping_units`]).
    units: Option<UnitCounts>,
}

/// The counts of one accounting per unit the what-if questions re-decide (item group,
/// ungrouped item, placeholder, pending OpInfo dtype): a question subtracts the units it
/// re-decides from the base counts without deciding them again.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UnitCounts {
    /// Per group: (runnable, filtered) members, all of the group's level.
    groups: Vec<[u32; 2]>,
    /// Per ungrouped item: 0 not collected, 1 runnable, 2 filtered.
    items: Vec<u8>,
    placeholders: [LevelCounts; 8],
    /// Pending OpInfo records per canonical dtype (filtered at the OpInfo level).
    pending: HashMap<Str, u32>,
}

impl UnitCounts {
    fn new(inv: &Inventory) -> UnitCounts {
        UnitCounts {
            groups: vec![[0; 2]; inv.hot.groups.len()],
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
            if let Some(&first) = inv.hot.members(g).first() {
                count(inv.hot.items[first as usize].level, runnable, filtered);
            }
        }
        for i in scope.items.iter().filter(|&i| inv.hot.group_of[i] == NO_GROUP) {
            match self.items[i] {
                1 => count(inv.hot.items[i].level, 1, 0),
                2 => count(inv.hot.items[i].level, 0, 1),
                _ => {}
            }
        }
        for (dt, _) in &scope.pending {
            let n = self.pending.get(dt).copied().unwrap_or(0) as usize;
            levels[level_index(inv.opinfo_level)].filtered += n;
        }
        levels
    }

    fn group(&mut self, g: usize, filtered: bool, n: usize) {
        self.groups[g][usize::from(filtered)] += n as u32;
    }

    fn node(&mut self, inv: &Inventory, node: NodeRef, level: u8, filtered: bool) {
        match node {
            NodeRef::Item(i) => match inv.hot.group_of[i as usize] {
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
    fn new(items: usize, reasons: usize) -> Tally {
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

    fn note(&mut self, reason: Reason, position: u64, n: usize, deselected: bool) {
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
    fn runnable(&mut self, ctx: &Ctx, level: u8, position: u64, n: usize) {
        let l = &mut self.levels[level_index(level)];
        l.collected += n;
        l.runnable += n;
        self.collected += n;
        if ctx.selection.contains(level) {
            self.executable += n;
        } else {
            let (reason, _) = level_outcome(ctx.selection, (ctx.r.level_gt, ctx.r.level_out), level);
            let desel = ctx.inv.deselect_reasons.get(reason as usize).copied().unwrap_or(false);
            self.note(reason, position, n, desel);
        }
    }

    /// `n` collected items of `level` filtered for one reason; the first at `position`.
    fn filtered_in_bulk(
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
    fn add(&mut self, ctx: &Ctx, at: usize, node: NodeRef, level: u8, outcome: Outcome) {
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

    fn store(&mut self, position: u64, record: Record) {
        if record.live_device_dependent {
            self.live_device_dependent += 1;
        }
        self.note(record.reason, position, 1, record.deselected);
        self.stored_records.push(record);
        self.stored_positions.push(position);
    }

    /// A pending OpInfo record (not a pytest item).
    fn add_pending(&mut self, inv: &Inventory, record: Record) {
        if let Some(units) = &mut self.units {
            units.node(inv, record.node, record.level, true);
        }
        self.levels[level_index(record.level)].filtered += 1;
        let position = PENDING_POSITION + self.pending;
        self.pending += 1;
        self.store(position, record);
    }
}

/// Presence, then the rule chain: `None` when the item is not collected.
fn evaluate(ctx: &mut Ctx, node: NodeRef, hot: &HotItem, item: &Item) -> Option<Outcome> {
    if present(ctx, hot) {
        Some(chain(ctx, node, hot, item))
    } else {
        None
    }
}

fn contract_rd(c: Rd) -> (Reason, Detail, bool) {
    (c.reason, Detail::Text(c.detail), false)
}

fn label_kind(p: DtypeParam) -> LabelKind {
    match p {
        DtypeParam::Dtype | DtypeParam::DtypeStr => LabelKind::Plain,
        DtypeParam::Autocast => LabelKind::Autocast,
        DtypeParam::Src => LabelKind::Src,
        DtypeParam::Dst => LabelKind::Dst,
    }
}

fn dev_fact(ctx: &Ctx, item: &Item, rule: DevRule) -> Option<Rd> {
    item.dev_facts(ctx.class).iter().find(|f| f.rule == rule).map(|f| f.rd)
}

fn dev_outcome(ctx: &Ctx, rd: Rd) -> (Reason, Detail, bool) {
    let detail = if ctx.class_is_custom { Detail::DeviceText(rd.detail) } else { Detail::Text(rd.detail) };
    (rd.reason, detail, false)
}

/// The rule chain of `pytest_collection_modifyitems` for one item, without the
/// semantic-level rule (applied by the caller). `None`: no reason.
/// Reads `hot` for every item and the full `item` only behind its rare flags.
fn chain(ctx: &mut Ctx, node: NodeRef, hot: &HotItem, item: &Item) -> Outcome {
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
                ContractMode::Set => skip = d1.contract.map(contract_rd),
                ContractMode::Fail => {
                    if let Some(c) = d1.contract {
                        skip = Some(contract_rd(c));
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
                return Some((ctx.r.capability, Detail::MissingCapabilities { node, mask }, false))
            }
            Requires::DeviceCount => return Some((ctx.r.device_count, Detail::DeviceCount, false)),
        }
    }
    // 5. skip_ops.
    if let Some(op) = op {
        if ctx.skip_op(op) {
            return Some((ctx.r.op_excluded, Detail::OpExcluded(op), false));
        }
    }
    if flags != 0 || has_dev {
        return rare_tail(ctx, hot, item, has_dev);
    }
    None
}

/// Steps 2-3 of the chain; kept out of line so that the common item never
/// touches the full `Item`.
#[inline(never)]
fn rare_dtype_gates(ctx: &mut Ctx, op: Option<Str>, flags: u16, item: &Item) -> Outcome {
    // 2. src_dtype / dst_dtype.
    for d in if flags & rare::D2 != 0 { &item.d2[..] } else { &[] } {
        if let Some((reason, detail)) = ctx.disposition(d.dt, op, label_kind(d.param)) {
            return Some((reason, detail, false));
        }
        if let Some(c) = d.contract {
            return Some(contract_rd(c));
        }
    }
    // 3. Fixed dtype contract gates.
    for g in if flags & rare::FIXED != 0 { &item.fixed[..] } else { &[] } {
        let subject = op.or(Some(g.surface));
        if let Some((reason, detail)) = ctx.disposition(g.dt, subject, LabelKind::Fixed) {
            return Some((reason, detail, false));
        }
        if let Some(c) = g.contract {
            return Some(contract_rd(c));
        }
    }
    None
}

/// Steps 5b-14 of the chain: facts only a few items have.
#[inline(never)]
fn rare_tail(ctx: &mut Ctx, hot: &HotItem, item: &Item, has_dev: bool) -> Outcome {
    let op = hot.op;
    let flags = hot.rare;
    // 5b.1 Quantized container formats.
    if let Some(p) = if flags & rare::PACKING != 0 { item.packing } else { None } {
        let name = ctx.text(p);
        if !ctx.facts.container_format(name).map(PyValue::truthy).unwrap_or(false) {
            return Some((ctx.r.container, Detail::ContainerFormat(p), false));
        }
        if item.decoder && !ctx.facts.container_decoder(name).map(PyValue::truthy).unwrap_or(false) {
            return Some((ctx.r.decoder, Detail::ContainerDecoder(p), false));
        }
    }
    // 5b.2 Large allocations.
    if flags & rare::LARGE != 0 && item.large {
        if let Some(v) = first_numeric(ctx.facts.resource_limit("max_tensor_size_mb"), None) {
            if v < 2048.0 {
                return Some((ctx.r.resource, Detail::MaxTensorSize(v), false));
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
                return Some((ctx.r.resource, Detail::DeviceMemory(m), auto && !ctx.class_is_cpu));
            }
        }
    }
    // 5b.3 Generated manual_rng entries.
    if flags & rare::RNG != 0 {
        if !ctx.cap("rng").map(PyValue::truthy).unwrap_or(true) {
            return Some((ctx.r.capability, Detail::Capability("rng"), false));
        }
        if item.rng == 2 && !ctx.cap("device_generator").map(PyValue::truthy).unwrap_or(true) {
            return Some((ctx.r.capability, Detail::Capability("device_generator"), false));
        }
    }
    // 5b.4 Generated collection preflight.
    if let Some(g) = if flags & rare::GENERATED != 0 { item.generated } else { None } {
        let outcome = match ctx.generated_memo.get(g as usize) {
            Some(&k) if k > 0 => ctx.generated_outcomes[k as usize - 1],
            _ => {
                let outcome = generated_preflight(ctx, g);
                ctx.generated_outcomes.push(outcome);
                if let Some(slot) = ctx.generated_memo.get_mut(g as usize) {
                    *slot = ctx.generated_outcomes.len() as u32;
                }
                outcome
            }
        };
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
        return Some((ctx.r.oom, Detail::OomNotRecoverable, false));
    }
    // 10. float64 for gradcheck.
    if let Some(gc) = if flags & rare::GRADCHECK != 0 { item.gradcheck } else { None } {
        if let Some((reason, detail)) = ctx.disposition(ctx.inv.s.float64, op, LabelKind::Gradcheck) {
            return Some((reason, detail, false));
        }
        if let Some(c) = gc {
            return Some(contract_rd(c));
        }
    }
    // 11. MPS index_reduce NaN.
    if let Some(rd) = if has_dev { dev_fact(ctx, item, DevRule::MpsBug) } else { None } {
        return Some(dev_outcome(ctx, rd));
    }
    // 12. Empty path-shape selection; 12b. OpInfo placeholder.
    if flags & rare::PATH_SHAPE != 0 {
        return Some((ctx.r.path_shape, Detail::PathShapeEmpty, false));
    }
    if flags & rare::DUMMY != 0 {
        return Some((ctx.r.opinfo_empty, Detail::OpinfoEmpty, false));
    }
    // 13 (semantic level) is applied by the caller; 14. known backend crash
    // comes after it and only for items the level keeps.
    if has_dev && !ctx.facts.layout.rooted_at_package && ctx.selection.contains(hot.level) {
        if let Some(rd) = dev_fact(ctx, item, DevRule::Crash) {
            return Some(dev_outcome(ctx, rd));
        }
    }
    None
}

/// `_generated_collection_preflight_skip_for_item` + `generated_collection_skip_for_entry`.
fn generated_preflight(ctx: &mut Ctx, g: u32) -> Outcome {
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
            return Some((ctx.r.gen_no_dtypes, Detail::GeneratedNoDtypes(name), false));
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
    fn keys_allow_every_name(&mut self) -> Option<bool> {
        if let Some(known) = self.keys_allow {
            return known;
        }
        let known = self.keys_allow_every_name_uncached();
        self.keys_allow = Some(known);
        known
    }

    fn keys_allow_every_name_uncached(&mut self) -> Option<bool> {
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

/// A generated entry's per-dtype preflight facts as masks over the inventory's dtype
/// positions: what-if questions ask the preflight of every class of entries, and with the
/// base items as a mask that is a few bit operations instead of a walk per class.
pub(crate) struct PreflightMasks {
    allowed: u64,
    probe_ok: u64,
    error: u64,
    shape: Option<ShapeMasks>,
}

struct ShapeMasks {
    /// Positions whose clean case runs on CPU.
    clean: u64,
    /// Positions whose NaN or Inf case runs on CPU.
    ieee: u64,
    base: Str,
    /// The NaN/Inf cases count (the entry is not clean-only).
    ieee_applies: bool,
}

impl PreflightMasks {
    /// `None` when the inventory has more dtypes than a mask holds.
    pub(crate) fn of(inv: &Inventory, gen: &Generated) -> Option<PreflightMasks> {
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

/// The generated preflight after (a), the check of the dtype keys against the name.
fn preflight_after_keys(ctx: &mut Ctx, gen: &Generated) -> Outcome {
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
                let live = Some(rd.reason) == ctx.r.backend_not_available && !ctx.class_is_cpu && !ctx.class_is_custom;
                Some((rd.reason, Detail::Text(rd.detail), live))
            }
        };
    }
    // (d) base items: truthy values with a resolvable key, sorted by key text.
    if ctx.keys.base_items.is_empty() {
        return Some((ctx.r.gen_no_dtypes, Detail::GeneratedNoDtypes(name), false));
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
        return Some((ctx.r.contract_unsupported, Detail::GeneratedCpuContract(name), false));
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
            return Some((ctx.r.strategy_pending, Detail::GeneratedShape(name), false));
        }
    }
    None
}

/// The dtype a `supported_dtypes` key names for generated entries:
/// `str_to_dtype(key)` (or, with `torch_prefix`, also `str_to_dtype("torch." + key)`).
fn resolve_key_dtype(inv: &Inventory, key: &PyValue, torch_prefix: bool) -> Option<Str> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The parity manifests and variations of them: every dtype flipped,
    /// regex-valued, removed; every capability flipped; skip_ops added;
    /// ieee754 as a pattern.
    fn manifests() -> Vec<ManifestFacts> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/skips/cases");
        let mut bases = Vec::new();
        let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("parity cases").flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let Ok(text) = std::fs::read_to_string(e.path().join("manifest.json")) else { continue };
            let json = serde_json::from_str(&text).expect("manifest json");
            bases.push(ManifestFacts::from_tagged_json(&json).expect("facts"));
        }
        let mut out = Vec::new();
        for base in bases.iter().take(4) {
            for i in 0..base.supported_dtypes.len() {
                for v in [PyValue::Bool(false), PyValue::Str("^(add|mul|sum.*)$".into())] {
                    let mut f = base.clone();
                    f.supported_dtypes[i].1 = v;
                    out.push(f);
                }
                let mut f = base.clone();
                f.supported_dtypes.remove(i);
                out.push(f);
            }
            for i in 0..base.capabilities.len() {
                let mut f = base.clone();
                let flipped = !f.capabilities[i].1.truthy();
                f.capabilities[i].1 = PyValue::Bool(flipped);
                out.push(f);
            }
            let mut f = base.clone();
            f.skip_ops.extend(["add", "aten.add.Tensor", "mul", "torch.nn.functional.conv2d", "sum"].map(String::from));
            out.push(f);
            let mut f = base.clone();
            f.capabilities.push(("ieee754".into(), PyValue::Str("^(add|div|exp)".into())));
            out.push(f);
            // Every dtype a regex: generated entries' preflight then hinges on their names.
            for pattern in ["backward", "^aten::_", "^(add|mul)"] {
                let mut f = base.clone();
                for (_, v) in f.supported_dtypes.iter_mut() {
                    *v = PyValue::Str(pattern.into());
                }
                out.push(f);
            }
        }
        out.extend(bases);
        out
    }

    /// The preflight by facts and masks (what-if questions) against the preflight itself.
    #[test]
    fn generated_preflight_by_masks_equals_the_preflight() {
        let inv = Inventory::embedded();
        let (mut compared, mut filtered) = (0, 0);
        for facts in manifests() {
            for device in ["cpu", "cuda"] {
                let (mut ctx, _) = new_context(inv, &facts, device, LevelSelection::Cumulative(8), None);
                for (g, gen) in inv.generated.iter().enumerate() {
                    let masks = PreflightMasks::of(inv, gen);
                    assert!(masks.is_some(), "the inventory's dtypes fit a mask");
                    let Some(by_masks) = ctx.generated_filters_by_facts(g as u32, masks.as_ref()) else { continue };
                    let real = generated_preflight(&mut ctx, g as u32).is_some();
                    assert_eq!(by_masks, real, "{}: {facts:?} on {device}", inv.string(gen.name));
                    compared += 1;
                    filtered += usize::from(real);
                }
                ctx.return_regex_entries();
            }
        }
        assert!(filtered > 1000 && compared - filtered > 1000, "{filtered} filtered of {compared}");
    }

    /// Known backend crashes come from device facts only, so the stored records hold them all.
    #[test]
    fn device_fact_records_are_all_the_crash_records() {
        let inv = Inventory::embedded();
        let mut crashes = 0;
        for facts in manifests().iter().take(12) {
            for device in ["cuda", "mps", "xpu", "cpu"] {
                let acc = account(inv, facts, device, LevelSelection::Cumulative(8));
                let all: Vec<Record> =
                    acc.records().into_iter().filter(|r| acc.reason_name(r.reason) == "known_backend_crash").collect();
                assert_eq!(acc.device_fact_records("known_backend_crash"), all, "{device}");
                crashes += all.len();
            }
        }
        assert!(crashes > 0, "no known_backend_crash record in the corpus manifests");
    }

    #[test]
    fn groups_decide_like_the_chain_item_by_item() {
        let inv = Inventory::embedded();
        let manifests = manifests();
        assert!(manifests.len() > 40, "only {} manifests", manifests.len());
        for (k, facts) in manifests.iter().enumerate() {
            for (device, selection) in [
                ("cpu", LevelSelection::Cumulative(8)),
                ("cuda", LevelSelection::Cumulative(2)),
                ("my_backend", LevelSelection::Range(3, 5)),
            ] {
                let fast = account_with(inv, facts, device, selection, Grouping::Groups, false).0;
                let slow = account_with(inv, facts, device, selection, Grouping::ItemByItem, false).0;
                let what = format!("manifest {k}, {device}, {selection:?}");
                assert_eq!(
                    (fast.collected, fast.deselected, fast.executable),
                    (slow.collected, slow.deselected, slow.executable),
                    "{what}"
                );
                assert_eq!(fast.levels, slow.levels, "{what}");
                assert_eq!(fast.reason_counts, slow.reason_counts, "{what}");
                assert_eq!(fast.records(), slow.records(), "{what}");
                assert_eq!(fast.executable_nodes(), slow.executable_nodes(), "{what}");
            }
        }
    }
}
