//! The difference of two accountings of the same inventory: per semantic level, the tests
//! that start running and the tests that stop running, each grouped by the manifest entry
//! that decides them ([`Cause`]) and by reason, plus the per-level, per-reason change of the
//! not-run records (what two show-skips outputs would differ by).
//!
//! A test "runs" when it is collected, in the selected levels and has no reason not to run
//! (show-skips' executable items). A test that stops running is attributed to the record the
//! new accounting gives it (what now filters it); a test that starts running to the record
//! the old accounting gave it (what used to filter it). A node one side does not collect at
//! all (a manifest-generated parameter that only exists for enabled dtypes) is attributed to
//! its dtype, with the reason [`NOT_COLLECTED`].

use std::collections::HashMap;

use crate::account::{Accounting, Detail, LabelKind, NodeRef, Record};
use crate::facts::{ManifestFacts, PyValue};
use crate::inventory::Reason;
use crate::Inventory;

/// The reason given to a node that one side does not collect at all.
pub const NOT_COLLECTED: &str = "not_collected";

/// The manifest entry (or suite rule) a change of a test's outcome comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cause {
    /// A `supported_dtypes` entry (its value, regex or absence), by canonical dtype name.
    Dtype(String),
    /// One or more `capabilities` a test lacks, sorted by name.
    Capability(Vec<String>),
    /// A `skip_ops` entry.
    SkipOp(String),
    /// `semantic_level` (or the requested level selection).
    SemanticLevel,
    /// `device_count`.
    DeviceCount,
    /// A `hardware` key (`device_memory_gb`, `oom_recoverable`).
    Hardware(String),
    /// A `resource_limits` key (`max_tensor_size_mb`).
    ResourceLimit(String),
    /// A `supported_container_formats` entry.
    ContainerFormat(String),
    /// A `custom_container_decoders` entry.
    ContainerDecoder(String),
    /// A manifest-generated parameter set (empty, or narrowed by the enabled dtypes).
    GeneratedSet,
    /// No manifest entry: a rule of the suite or of the device (the reason's name).
    Suite(String),
}

impl Cause {
    /// Short human label ("float16 entry", "capability training", "skip_ops index_reduce").
    pub fn label(&self) -> String {
        match self {
            Cause::Dtype(dt) => format!("{} entry", dt.strip_prefix("torch.").unwrap_or(dt)),
            Cause::Capability(names) => format!("capability {}", names.join(", ")),
            Cause::SkipOp(op) => format!("skip_ops {op}"),
            Cause::SemanticLevel => "semantic_level".to_string(),
            Cause::DeviceCount => "device_count".to_string(),
            Cause::Hardware(k) => format!("hardware.{k}"),
            Cause::ResourceLimit(k) => format!("resource_limits.{k}"),
            Cause::ContainerFormat(f) => format!("supported_container_formats {f}"),
            Cause::ContainerDecoder(f) => format!("custom_container_decoders {f}"),
            Cause::GeneratedSet => "generated parameter sets".to_string(),
            Cause::Suite(reason) => format!("suite rule {reason}"),
        }
    }

    /// The manifest key this cause lives under (`None` for suite rules and generated sets).
    pub fn manifest_key(&self) -> Option<&'static str> {
        Some(match self {
            Cause::Dtype(_) => "supported_dtypes",
            Cause::Capability(_) => "capabilities",
            Cause::SkipOp(_) => "skip_ops",
            Cause::SemanticLevel => "semantic_level",
            Cause::DeviceCount => "device_count",
            Cause::Hardware(_) => "hardware",
            Cause::ResourceLimit(_) => "resource_limits",
            Cause::ContainerFormat(_) => "supported_container_formats",
            Cause::ContainerDecoder(_) => "custom_container_decoders",
            Cause::GeneratedSet | Cause::Suite(_) => return None,
        })
    }
}

/// Tests that changed the same way for the same cause and reason, in collection order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub cause: Cause,
    /// The reason of the record on the side where the test does not run.
    pub reason: String,
    /// Full node ids.
    pub nodes: Vec<String>,
}

/// The changes at one semantic level.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LevelDiff {
    pub level: u8,
    /// Tests that run with the new manifest and did not with the old one, largest group first.
    pub started: Vec<Group>,
    /// Tests that ran with the old manifest and do not with the new one, largest group first.
    pub stopped: Vec<Group>,
    /// Not-run records of this level, per reason: new count minus old count (non-zero only).
    pub reason_deltas: Vec<(String, i64)>,
}

impl LevelDiff {
    pub fn started_count(&self) -> usize {
        self.started.iter().map(|g| g.nodes.len()).sum()
    }
    pub fn stopped_count(&self) -> usize {
        self.stopped.iter().map(|g| g.nodes.len()).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.started.is_empty() && self.stopped.is_empty() && self.reason_deltas.is_empty()
    }
}

/// The difference `new - old` of two accountings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AccountingDiff {
    /// Levels 1..=8 in order (empty ones included).
    pub levels: Vec<LevelDiff>,
    /// Not-run records per reason over all levels: new minus old (non-zero only), in the
    /// order the reasons are first seen (old accounting first).
    pub reason_deltas: Vec<(String, i64)>,
    /// Tests that run (show-skips' executable items) with each manifest.
    pub old_running: usize,
    pub new_running: usize,
    /// Why no difference could be computed (the accountings use different inventories).
    pub problem: Option<String>,
}

impl AccountingDiff {
    pub fn started_count(&self) -> usize {
        self.levels.iter().map(LevelDiff::started_count).sum()
    }
    pub fn stopped_count(&self) -> usize {
        self.levels.iter().map(LevelDiff::stopped_count).sum()
    }

    /// Per cause over all levels: (started, stopped), causes in order of their first group.
    pub fn by_cause(&self) -> Vec<(Cause, usize, usize)> {
        let mut out: Vec<(Cause, usize, usize)> = Vec::new();
        let mut add = |cause: &Cause, started: usize, stopped: usize| match out.iter_mut().find(|c| &c.0 == cause) {
            Some(c) => {
                c.1 += started;
                c.2 += stopped;
            }
            None => out.push((cause.clone(), started, stopped)),
        };
        for level in &self.levels {
            for g in &level.stopped {
                add(&g.cause, 0, g.nodes.len());
            }
            for g in &level.started {
                add(&g.cause, g.nodes.len(), 0);
            }
        }
        out
    }
}

/// A node that is not an item (a placeholder or a pending OpInfo record), the same in both
/// accountings of one inventory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum OtherKey {
    Placeholder(u8),
    Pending(bool, u32, u32, u32),
}

fn other_key(node: NodeRef) -> Option<OtherKey> {
    match node {
        NodeRef::Item(_) => None,
        NodeRef::Placeholder(k) => Some(OtherKey::Placeholder(k as u8)),
        NodeRef::Pending { backward, cond, op, dt } => Some(OtherKey::Pending(backward, cond, op, dt)),
    }
}

#[derive(Debug, Clone, Copy)]
enum State {
    Runs(u8),
    NotRun(Record),
}

/// Every node one accounting knows, with its state: items by index (dense: the diff of two
/// accountings is a walk over two arrays), the few other nodes by key, and the record counts
/// per (level, reason) in show-skips order. The editor prepares the committed side once.
#[derive(Debug, Clone)]
pub struct Prepared {
    items: Vec<Option<State>>,
    others: Vec<(NodeRef, State)>,
    other_index: HashMap<OtherKey, usize>,
    record_counts: Vec<((u8, Reason), i64)>,
    running: usize,
}

/// Prepares one side of a diff.
pub fn prepare(acc: &Accounting) -> Prepared {
    let inv = acc.inventory;
    let mut p = Prepared {
        items: vec![None; inv.items.len()],
        others: Vec::new(),
        other_index: HashMap::new(),
        record_counts: Vec::new(),
        running: acc.executable,
    };
    let put = |p: &mut Prepared, node: NodeRef, state: State| match (node, other_key(node)) {
        (NodeRef::Item(i), _) => {
            if let Some(slot) = p.items.get_mut(i as usize) {
                *slot = Some(state);
            }
        }
        (_, Some(k)) => {
            p.other_index.insert(k, p.others.len());
            p.others.push((node, state));
        }
        (_, None) => {}
    };
    for node in acc.executable_nodes() {
        put(&mut p, node, State::Runs(acc.node_level(node)));
    }
    let mut slots: HashMap<(u8, Reason), usize> = HashMap::new();
    for rec in acc.records() {
        let slot = *slots.entry((rec.level, rec.reason)).or_insert_with(|| {
            p.record_counts.push(((rec.level, rec.reason), 0));
            p.record_counts.len() - 1
        });
        p.record_counts[slot].1 += 1;
        put(&mut p, rec.node, State::NotRun(rec));
    }
    p
}

/// A side on which nothing is collected and nothing runs, for the inventory of `acc`: the old
/// side of a manifest that did not exist yet, so that every test `acc` runs starts.
pub fn prepare_nothing(acc: &Accounting) -> Prepared {
    Prepared {
        items: vec![None; acc.inventory.items.len()],
        others: Vec::new(),
        other_index: HashMap::new(),
        record_counts: Vec::new(),
        running: 0,
    }
}

impl Prepared {
    fn other(&self, node: NodeRef) -> Option<&State> {
        other_key(node).and_then(|k| self.other_index.get(&k)).map(|&i| &self.others[i].1)
    }

    /// (node, state here) for every node, items in collection order first.
    fn nodes(&self) -> impl Iterator<Item = (NodeRef, &State)> {
        let items = self.items.iter().enumerate().filter_map(|(i, s)| s.as_ref().map(|s| (NodeRef::Item(i as u32), s)));
        items.chain(self.others.iter().map(|(n, s)| (*n, s)))
    }

    fn state(&self, node: NodeRef) -> Option<&State> {
        match node {
            NodeRef::Item(i) => self.items.get(i as usize).and_then(Option::as_ref),
            other => self.other(other),
        }
    }
}

/// What decides a record: the manifest entry its rule reads.
pub fn cause_of(acc: &Accounting, rec: &Record) -> Cause {
    let inv = acc.inventory;
    let dtype = |l: &crate::account::DtypeLabel| match l.kind {
        LabelKind::Gradcheck => Cause::Dtype("torch.float64".to_string()),
        _ => Cause::Dtype(inv.string(l.dt).to_string()),
    };
    match &rec.detail {
        Detail::NotListed(l) | Detail::DeclaredUnsupported(l) => dtype(l),
        Detail::RegexFiltered { label, .. } | Detail::UnsupportedValue { label, .. } => dtype(label),
        Detail::MissingCapabilities { .. } => {
            let text = acc.detail(rec);
            let mut names: Vec<String> =
                text.trim_start_matches("requires capabilities: ").split(", ").map(str::to_string).collect();
            // torchcts joins them in Python set order; a stable label needs one order.
            names.sort_unstable();
            Cause::Capability(names)
        }
        Detail::Capability(c) => Cause::Capability(vec![c.to_string()]),
        Detail::OpExcluded(op) => Cause::SkipOp(inv.string(*op).to_string()),
        Detail::LevelAbove(_) | Detail::LevelOutside(_) => Cause::SemanticLevel,
        Detail::DeviceCount => Cause::DeviceCount,
        Detail::MaxTensorSize(_) => Cause::ResourceLimit("max_tensor_size_mb".to_string()),
        Detail::DeviceMemory(_) => Cause::Hardware("device_memory_gb".to_string()),
        Detail::OomNotRecoverable => Cause::Hardware("oom_recoverable".to_string()),
        Detail::ContainerFormat(p) => Cause::ContainerFormat(inv.string(*p).to_string()),
        Detail::ContainerDecoder(p) => Cause::ContainerDecoder(inv.string(*p).to_string()),
        Detail::GeneratedNoDtypes(_)
        | Detail::GeneratedCpuContract(_)
        | Detail::GeneratedShape(_)
        | Detail::OpinfoEmpty
        | Detail::KnownCrash
        | Detail::PathShapeEmpty => Cause::GeneratedSet,
        Detail::Text(_) | Detail::DeviceText(_) => Cause::Suite(acc.reason_name(rec.reason).to_string()),
    }
}

/// What decides that a node is not collected at all on the side whose facts are `facts`:
/// its operator listed in `skip_ops` (generated sets leave those out), else its dtype when
/// that side does not enable it plainly, else the generated set itself.
fn cause_of_absence(inv: &Inventory, node: NodeRef, facts: &ManifestFacts) -> Cause {
    if let NodeRef::Pending { dt, .. } = node {
        return Cause::Dtype(inv.string(dt).to_string());
    }
    if matches!(node, NodeRef::Placeholder(_)) {
        return Cause::GeneratedSet;
    }
    let (op, dt) = crate::account::node_subject(inv, node);
    if let Some(op) = op.map(|op| inv.string(op)) {
        if facts.skip_ops.iter().any(|s| s == op) {
            return Cause::SkipOp(op.to_string());
        }
    }
    match dt.map(|dt| inv.string(dt)) {
        Some(dt) if dt.starts_with("torch.") && !plainly_enabled(facts, dt) => Cause::Dtype(dt.to_string()),
        _ => Cause::GeneratedSet,
    }
}

/// `supported_dtypes[dt] is True` (last key wins; a `torch.X` key or its string spelling).
fn plainly_enabled(facts: &ManifestFacts, dt: &str) -> bool {
    facts
        .supported_dtypes
        .iter()
        .rev()
        .find(|(k, _)| matches!(k, PyValue::Dtype(d) | PyValue::Str(d) if d == dt))
        .is_some_and(|(_, v)| v.is_true())
}

/// Adds `node` to the group (cause, reason) of `groups[level]`.
fn push(groups: &mut [Vec<Group>; 8], level: u8, cause: Cause, reason: &str, node: String) {
    let at = &mut groups[(level.clamp(1, 8) - 1) as usize];
    match at.iter_mut().find(|g| g.cause == cause && g.reason == reason) {
        Some(g) => g.nodes.push(node),
        None => at.push(Group { cause, reason: reason.to_string(), nodes: vec![node] }),
    }
}

/// The difference `new - old` of the accountings of `old_facts` and `new_facts`. Both
/// accountings must come from the same inventory.
pub fn diff(
    old: &Accounting,
    old_facts: &ManifestFacts,
    new: &Accounting,
    new_facts: &ManifestFacts,
) -> AccountingDiff {
    diff_prepared(old, &prepare(old), old_facts, new, &prepare(new), new_facts)
}

/// [`diff`] with both sides already prepared ([`prepare`] of the same accountings).
pub fn diff_prepared(
    old: &Accounting,
    old_p: &Prepared,
    old_facts: &ManifestFacts,
    new: &Accounting,
    new_p: &Prepared,
    new_facts: &ManifestFacts,
) -> AccountingDiff {
    if !std::ptr::eq(old.inventory, new.inventory) || old_p.items.len() != new_p.items.len() {
        return AccountingDiff {
            problem: Some("the two accountings use different inventories".to_string()),
            ..AccountingDiff::default()
        };
    }
    let inv = new.inventory;
    let mut started: [Vec<Group>; 8] = Default::default();
    let mut stopped: [Vec<Group>; 8] = Default::default();
    for (node, state) in old_p.nodes() {
        let State::Runs(level) = state else { continue };
        match new_p.state(node) {
            Some(State::Runs(_)) => {}
            Some(State::NotRun(rec)) => {
                push(&mut stopped, *level, cause_of(new, rec), new.reason_name(rec.reason), new.node_ref_id(node))
            }
            None => {
                push(&mut stopped, *level, cause_of_absence(inv, node, new_facts), NOT_COLLECTED, new.node_ref_id(node))
            }
        }
    }
    for (node, state) in new_p.nodes() {
        let State::Runs(level) = state else { continue };
        match old_p.state(node) {
            Some(State::Runs(_)) => {}
            Some(State::NotRun(rec)) => {
                push(&mut started, *level, cause_of(old, rec), old.reason_name(rec.reason), new.node_ref_id(node))
            }
            None => {
                push(&mut started, *level, cause_of_absence(inv, node, old_facts), NOT_COLLECTED, new.node_ref_id(node))
            }
        }
    }
    let (deltas, total) = record_deltas(old_p, new_p, new);
    let by_size = |mut groups: Vec<Group>| {
        groups.sort_by(|a, b| b.nodes.len().cmp(&a.nodes.len()).then_with(|| a.cause.cmp(&b.cause)));
        groups
    };
    let mut started = started.into_iter();
    let mut stopped = stopped.into_iter();
    let levels = (1..=8u8)
        .map(|level| LevelDiff {
            level,
            started: by_size(started.next().unwrap_or_default()),
            stopped: by_size(stopped.next().unwrap_or_default()),
            reason_deltas: deltas
                .iter()
                .filter(|((l, _), n)| *l == level && *n != 0)
                .map(|((_, r), n)| (new.reason_name(*r).to_string(), *n))
                .collect(),
        })
        .collect();
    AccountingDiff {
        levels,
        reason_deltas: total,
        old_running: old_p.running,
        new_running: new_p.running,
        problem: None,
    }
}

/// A change in the number of records of one (level, reason).
type LevelReasonDelta = ((u8, Reason), i64);

/// Records per (level, reason), new minus old, reasons in first-seen order (old first); and
/// per reason name over all levels, the reasons whose count changed.
fn record_deltas(old_p: &Prepared, new_p: &Prepared, new: &Accounting) -> (Vec<LevelReasonDelta>, Vec<(String, i64)>) {
    let mut deltas: Vec<LevelReasonDelta> = old_p.record_counts.iter().map(|(k, n)| (*k, -n)).collect();
    for (key, n) in &new_p.record_counts {
        match deltas.iter_mut().find(|d| d.0 == *key) {
            Some(d) => d.1 += n,
            None => deltas.push((*key, *n)),
        }
    }
    let mut total: Vec<(String, i64)> = Vec::new();
    for ((_, reason), n) in &deltas {
        let name = new.reason_name(*reason);
        match total.iter_mut().find(|t| t.0 == name) {
            Some(t) => t.1 += n,
            None => total.push((name.to_string(), *n)),
        }
    }
    total.retain(|t| t.1 != 0);
    (deltas, total)
}

/// The semantic level of every collected item of the suite, by the node id show-skips prints
/// (`nodeid.split('/')[-1]`); ids printed twice keep the first level. For checking a diff
/// against real show-skips outputs, whose lists carry no levels.
pub fn levels_by_printed_id(inv: &Inventory) -> HashMap<&str, u8> {
    let mut out = HashMap::with_capacity(inv.items.len());
    for item in &inv.items {
        out.entry(inv.printed_id(item)).or_insert(item.level);
    }
    out
}
