//! The support record of one manifest as plain data: what it claims, what the accounting runs
//! and filters (its own counts, equal to `skips --format json`), and what the runs showed (the
//! evidence index of the result folders, joined test by test). The renderers (`html.rs`,
//! `markdown.rs`, `json.rs`) read only this.
//!
//! Everything is in a fixed order (collection order, names sorted), so the same inputs give
//! the same bytes; paths are relative and error texts cut to a line with machine paths taken out.

use accounting::diff::Cause;
use accounting::{Accounting, NodeRef, PyValue};
use runner::evidence::{EvidenceIndex, EvidenceStatus, RunInfo};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use torchcts_core::value::{Dict, ValueKind};

/// The column of tests that test no dtype, and the row of tests of no operator.
pub const NO_DTYPE: &str = "(no dtype)";
pub const NO_OPERATOR: &str = "(no operator)";

/// An error text in the record: at most this many characters of its first line.
const ERROR_CHARS: usize = 200;

#[derive(Debug, Clone)]
pub struct SupportRecord {
    /// The manifest as given, relative (never an absolute path of this machine).
    pub manifest: String,
    pub device: String,
    pub device_assumed: bool,
    pub torch: String,
    pub torchcts: String,
    pub inventory_note: Option<String>,
    /// "requested <= 3".
    pub selection: String,
    pub collected: usize,
    pub deselected: usize,
    pub included: usize,
    pub executable: usize,
    /// Not-run records per reason, in show-skips order.
    pub reason_counts: Vec<(String, usize)>,
    pub levels: Vec<LevelRow>,
    pub dtypes: Vec<DtypeColumn>,
    pub operators: Vec<OperatorRow>,
    pub capabilities: Vec<EntryRow>,
    pub skip_ops: Vec<EntryRow>,
    pub tolerances: Vec<ToleranceRow>,
    pub evidence: EvidenceSummary,
    /// Per entry (dtypes, capabilities, skip_ops items, tolerance overrides, semantic_level):
    /// its manifest line and what the runs showed for the tests it decides (the core's
    /// attribution, `torchcts_core::evidence`).
    pub entries: Vec<(usize, torchcts_core::evidence::EntryEvidence)>,
    pub notes: Vec<String>,
    /// `--against REV`: the review diff.
    pub review: Option<ReviewPart>,
    /// `--timestamp`: when the record was made (else none: same input, same bytes).
    pub generated_at: Option<String>,
}

/// One semantic level of the chart: its tests that run, and those filtered per reason.
#[derive(Debug, Clone)]
pub struct LevelRow {
    pub level: u8,
    /// In the selection (its `run` tests execute).
    pub selected: bool,
    pub collected: usize,
    pub run: usize,
    pub filtered: usize,
    /// Filtered tests per reason (the level rule excluded), largest first.
    pub by_reason: Vec<(String, usize)>,
}

/// A column of the matrix: a dtype and what the manifest claims for it.
#[derive(Debug, Clone)]
pub struct DtypeColumn {
    pub name: String,
    /// "True", "False", "regex '^(add|mul)$'", "not listed", "" for [`NO_DTYPE`].
    pub claim: String,
    /// The 1-based line of its `supported_dtypes` entry.
    pub line: Option<usize>,
}

/// A row of the matrix: an operator and its cells, one per column (`None`: no test).
#[derive(Debug, Clone)]
pub struct OperatorRow {
    pub name: String,
    /// The 1-based line of its `skip_ops` entry when the manifest skips it.
    pub skip_line: Option<usize>,
    pub cells: Vec<Option<Cell>>,
}

#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// Its anchor in the test list (`c{id}`).
    pub id: usize,
    pub tally: Tally,
    pub tests: Vec<TestRow>,
}

/// What happened to a set of tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub run: usize,
    pub filtered: usize,
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub skipped: usize,
    /// Tests that run with no record on the device.
    pub no_record: usize,
    /// Filtered tests per reason, in first-seen order.
    pub by_reason: Vec<(String, usize)>,
}

impl Tally {
    /// "409 passed · 3 failed · 12 no record" (zero counts left out; "no records" for none).
    pub fn line(&self) -> String {
        let t = self;
        let parts: Vec<String> = [
            (t.passed, "passed"),
            (t.failed, "failed"),
            (t.errored, "errored"),
            (t.skipped, "skipped at run time"),
            (t.no_record, "no record"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        if parts.is_empty() {
            "no tests".to_string()
        } else {
            parts.join(" · ")
        }
    }

    fn add(&mut self, outcome: &Outcome) {
        match outcome {
            Outcome::Filtered { reason, .. } => {
                self.filtered += 1;
                match self.by_reason.iter_mut().find(|(r, _)| r == reason) {
                    Some(slot) => slot.1 += 1,
                    None => self.by_reason.push((reason.clone(), 1)),
                }
            }
            Outcome::Runs(observed) => {
                self.run += 1;
                match observed.as_ref().map(|o| o.status) {
                    None => self.no_record += 1,
                    Some(EvidenceStatus::Passed) => self.passed += 1,
                    Some(EvidenceStatus::Failed) => self.failed += 1,
                    Some(EvidenceStatus::Error) => self.errored += 1,
                    Some(EvidenceStatus::Skipped) => self.skipped += 1,
                }
            }
        }
    }
}

pub fn is_failure(status: EvidenceStatus) -> bool {
    matches!(status, EvidenceStatus::Failed | EvidenceStatus::Error)
}

#[derive(Debug, Clone)]
pub struct TestRow {
    /// Package-relative node id (`opinfo/test_opinfo_forward.py::test_op_forward[...]`).
    pub node_id: String,
    pub level: u8,
    pub outcome: Outcome,
}

#[derive(Debug, Clone)]
pub enum Outcome {
    /// The test executes; what its newest record says, if it has one.
    Runs(Option<Observed>),
    /// Not run: the accounting's reason and the manifest entry (or rule) that decides it.
    Filtered { reason: String, cause: String },
}

#[derive(Debug, Clone)]
pub struct Observed {
    pub status: EvidenceStatus,
    /// The first line of the error (failed, errored) or skip reason, cut, paths taken out.
    pub message: Option<String>,
    /// Index into [`EvidenceSummary::runs`].
    pub run: usize,
}

/// A `capabilities` or `skip_ops` entry: its value and what it does.
#[derive(Debug, Clone)]
pub struct EntryRow {
    pub name: String,
    /// The value as written (`True`, a regex's repr); `skip_ops` entries have none.
    pub value: String,
    pub line: Option<usize>,
    /// Tests the accounting filters because of this entry (a missing or false capability, a
    /// skipped operator).
    pub removes: usize,
    /// Of the tests it removes, those with a record on the device (an older run or a scratch
    /// run without the entry): passed and failed-or-errored.
    pub removed_passed: usize,
    pub removed_failed: usize,
}

/// A `tolerance_overrides` entry against torchcts' default for its category and dtype.
#[derive(Debug, Clone)]
pub struct ToleranceRow {
    pub key: String,
    pub value: String,
    pub line: Option<usize>,
    /// (rtol, atol) the override sets, when it is a literal torchcts reads so.
    pub override_tol: Option<(f64, f64)>,
    /// torchcts' golden (rtol, atol) for the category and dtype.
    pub default_golden: Option<(f64, f64)>,
    /// "rtol 1e-3 -> 1e-2 (10x looser)"; "no default: ..." when unknown.
    pub effect: String,
    /// Tests of that dtype that run (the ones whose comparisons may read it).
    pub dtype_tests_run: usize,
}

/// The runs the evidence comes from and the totals over the tests that run.
#[derive(Debug, Clone, Default)]
pub struct EvidenceSummary {
    /// The folders read, relative.
    pub folders: Vec<String>,
    pub runs: Vec<RunRow>,
    pub tally: Tally,
    /// Any run that gave a record did not complete.
    pub partial: bool,
    /// Records of tests the manifest does not run now (filtered, or not in the inventory).
    pub records_not_run_now: usize,
    /// Files that could not be used: (relative path, message).
    pub problems: Vec<(String, String)>,
    /// History files left out by the bound.
    pub omitted: usize,
}

#[derive(Debug, Clone)]
pub struct RunRow {
    /// The artifact, relative to its results folder's parent (`results/cpu_history/x.json`).
    pub artifact: String,
    pub timestamp: Option<String>,
    pub torch: Option<String>,
    pub hardware: Option<String>,
    pub partial: bool,
    pub level: Option<String>,
    /// Records the run holds, and of them the newest for their test on the device (used here).
    pub tests: usize,
    pub newest_records: usize,
}

/// `--against REV`: the review diff, rendered by the core.
#[derive(Debug, Clone)]
pub struct ReviewPart {
    pub against: String,
    pub summary: String,
    pub markdown: String,
    pub json: serde_json::Value,
    /// (label, started, stopped) per cause, largest first.
    pub changes: Vec<(String, usize, usize)>,
}

/// The inputs of [`build`] besides the accounting.
pub struct Sources<'a> {
    pub manifest_name: String,
    pub text: &'a str,
    pub line_index: &'a torchcts_core::LineIndex,
    pub manifest: &'a Dict,
    pub facts: &'a accounting::ManifestFacts,
    pub index: &'a EvidenceIndex,
    pub folders: &'a [PathBuf],
    pub inventory_label: (String, String, Option<String>),
}

/// The record of one manifest.
pub fn build(acc: &Accounting, src: &Sources) -> SupportRecord {
    let runs = run_rows(src.index, src.folders);
    let run_position: HashMap<*const RunInfo, usize> =
        src.index.runs().iter().enumerate().map(|(i, r)| (Arc::as_ptr(r), i)).collect();
    let observe = |id: &str| {
        src.index.record(id).map(|e| Observed {
            status: e.status,
            message: e.error.as_deref().or(e.skip_reason.as_deref()).map(clean_message),
            run: run_position.get(&Arc::as_ptr(&e.run)).copied().unwrap_or(0),
        })
    };
    let line_of_span = |start: usize| src.line_index.line_of(start) + 1;
    let dtypes_dict = src.manifest.get("supported_dtypes").and_then(|e| e.value.as_dict());

    // Every node the accounting knows: (op, dtype, test).
    let mut rows: Vec<(String, String, TestRow)> = Vec::with_capacity(acc.collected + 64);
    let mut run_ids = std::collections::HashSet::new();
    for node in acc.executable_nodes() {
        let id = runner::evidence::normalize_node_id(&acc.node_ref_id(node));
        let (op, dt) = subject(acc, node);
        let level = acc.node_level(node);
        let observed = observe(&id);
        run_ids.insert(id.clone());
        rows.push((op, dt, TestRow { node_id: id, level, outcome: Outcome::Runs(observed) }));
    }
    let mut skip_removed: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    let mut cap_removed: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for rec in acc.records() {
        let id = runner::evidence::normalize_node_id(&acc.node_id(&rec));
        let (op, dt) = subject(acc, rec.node);
        let cause = accounting::diff::cause_of(acc, &rec);
        let seen = src.index.record(&id).map(|e| e.status);
        let count = |slot: &mut (usize, usize, usize)| {
            slot.0 += 1;
            match seen {
                Some(EvidenceStatus::Passed) => slot.1 += 1,
                Some(EvidenceStatus::Failed | EvidenceStatus::Error) => slot.2 += 1,
                _ => {}
            }
        };
        match &cause {
            Cause::SkipOp(name) => count(skip_removed.entry(name.clone()).or_default()),
            Cause::Capability(names) => {
                for n in names {
                    count(cap_removed.entry(n.clone()).or_default());
                }
            }
            _ => {}
        }
        let outcome = Outcome::Filtered { reason: acc.reason_name(rec.reason).to_string(), cause: cause.label() };
        rows.push((op, dt, TestRow { node_id: id, level: rec.level, outcome }));
    }

    let dtypes = dtype_columns(&rows, src.facts, dtypes_dict, &line_of_span);
    let column: HashMap<&str, usize> = dtypes.iter().enumerate().map(|(i, d)| (d.name.as_str(), i)).collect();
    let skip_lines = skip_op_lines(src.manifest, &line_of_span);
    let mut by_op: BTreeMap<String, Vec<Option<Cell>>> = BTreeMap::new();
    let mut dtype_run: HashMap<String, usize> = HashMap::new();
    let mut tally = Tally::default();
    for (op, dt, test) in rows {
        tally.add(&test.outcome);
        if matches!(test.outcome, Outcome::Runs(_)) {
            *dtype_run.entry(dt.clone()).or_default() += 1;
        }
        let cells = by_op.entry(op).or_insert_with(|| vec![None; dtypes.len()]);
        let cell = cells[column[dt.as_str()]].get_or_insert_with(Cell::default);
        cell.tally.add(&test.outcome);
        cell.tests.push(test);
    }
    // The tally counts the filtered tests too; the evidence summary is about those that run.
    let mut evidence_tally = tally.clone();
    evidence_tally.filtered = 0;
    evidence_tally.by_reason.clear();
    let mut next_id = 0;
    let mut operators: Vec<OperatorRow> = by_op
        .into_iter()
        .map(|(name, mut cells)| {
            for cell in cells.iter_mut().flatten() {
                cell.id = next_id;
                next_id += 1;
            }
            OperatorRow { skip_line: skip_lines.get(&name).copied(), name, cells }
        })
        .collect();
    // The row of tests without an operator goes last.
    if let Some(i) = operators.iter().position(|o| o.name == NO_OPERATOR) {
        let row = operators.remove(i);
        operators.push(row);
    }
    let records_not_run_now = src.index.records().filter(|(id, _)| !run_ids.contains(*id)).count();
    let partial = src.index.records().any(|(_, e)| e.run.partial && run_ids.contains(&normalize(&e.node_id)));
    SupportRecord {
        manifest: src.manifest_name.clone(),
        device: acc.device.device.clone(),
        device_assumed: acc.device.assumed,
        torch: src.inventory_label.1.clone(),
        torchcts: src.inventory_label.0.clone(),
        inventory_note: src.inventory_label.2.clone(),
        selection: acc.selection.label(),
        collected: acc.collected,
        deselected: acc.deselected,
        included: acc.included,
        executable: acc.executable,
        reason_counts: acc.reason_counts.iter().map(|(r, n)| (acc.reason_name(*r).to_string(), *n)).collect(),
        levels: level_rows(acc),
        dtypes,
        operators,
        capabilities: capability_rows(src.manifest, &cap_removed, &line_of_span),
        skip_ops: skip_op_rows(src.facts, &skip_lines, &skip_removed),
        tolerances: tolerance_rows(src.manifest, &dtype_run, &line_of_span),
        evidence: EvidenceSummary {
            folders: src.folders.iter().map(|f| relative(f)).collect(),
            runs,
            tally: evidence_tally,
            partial,
            records_not_run_now,
            problems: src.index.problems().iter().map(|p| (relative(&p.path), clean_message(&p.message))).collect(),
            omitted: src.index.omitted(),
        },
        entries: Vec::new(),
        notes: Vec::new(),
        review: None,
        generated_at: None,
    }
}

fn normalize(id: &str) -> String {
    runner::evidence::normalize_node_id(id)
}

/// (operator, dtype) of a node, with the row and column names of tests that have none.
fn subject(acc: &Accounting, node: NodeRef) -> (String, String) {
    let (op, dt) = acc.op_and_dtype(node);
    (op.unwrap_or(NO_OPERATOR).to_string(), dt.unwrap_or(NO_DTYPE).to_string())
}

/// Per level: run, filtered, and the filtered per reason (the level rule's records are the
/// runnable tests of unselected levels, drawn as run).
fn level_rows(acc: &Accounting) -> Vec<LevelRow> {
    let mut by_level: Vec<Vec<(String, usize)>> = vec![Vec::new(); 8];
    for rec in acc.records() {
        let reason = acc.reason_name(rec.reason);
        if matches!(rec.detail, accounting::Detail::LevelAbove(_) | accounting::Detail::LevelOutside(_)) {
            continue;
        }
        let slot = &mut by_level[(rec.level.clamp(1, 8) - 1) as usize];
        match slot.iter_mut().find(|(r, _)| r == reason) {
            Some(s) => s.1 += 1,
            None => slot.push((reason.to_string(), 1)),
        }
    }
    acc.levels
        .iter()
        .zip(by_level)
        .map(|(l, mut by_reason)| {
            by_reason.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            LevelRow {
                level: l.level,
                selected: acc.selection.contains(l.level),
                collected: l.collected,
                run: l.runnable,
                filtered: l.filtered,
                by_reason,
            }
        })
        .collect()
}

/// The dtypes of the suite's tests, in the order the manifest lists them, then the others
/// sorted, then [`NO_DTYPE`]; each with its claim.
fn dtype_columns(
    rows: &[(String, String, TestRow)],
    facts: &accounting::ManifestFacts,
    dict: Option<&Dict>,
    line_of: &dyn Fn(usize) -> usize,
) -> Vec<DtypeColumn> {
    let mut names: Vec<String> = Vec::new();
    for (key, _) in &facts.supported_dtypes {
        if let PyValue::Dtype(d) | PyValue::Str(d) = key {
            let d = accounting::canonical_dtype(d).map(str::to_string).unwrap_or_else(|| d.clone());
            if !names.contains(&d) && rows.iter().any(|r| r.1 == d) {
                names.push(d);
            }
        }
    }
    let mut others: Vec<String> =
        rows.iter().map(|r| r.1.clone()).filter(|d| !names.contains(d) && d != NO_DTYPE).collect();
    others.sort();
    others.dedup();
    names.extend(others);
    if rows.iter().any(|r| r.1 == NO_DTYPE) {
        names.push(NO_DTYPE.to_string());
    }
    names
        .into_iter()
        .map(|name| {
            let entry = dict.and_then(|d| {
                d.entries.iter().rev().find(|e| {
                    let key = match &e.key.kind {
                        ValueKind::Str(s) => Some(s.as_str()),
                        _ => None,
                    };
                    dtype_key_name(e).as_deref() == Some(name.as_str()) || key == Some(name.as_str())
                })
            });
            let claim = if name == NO_DTYPE {
                String::new()
            } else {
                match entry.map(|e| &e.value.kind) {
                    None => "not listed".to_string(),
                    Some(ValueKind::Bool(b)) => if *b { "True" } else { "False" }.to_string(),
                    Some(ValueKind::Str(_)) => format!("regex {}", entry.map(|e| e.value.repr()).unwrap_or_default()),
                    Some(_) => entry.map(|e| e.value.repr()).unwrap_or_default(),
                }
            };
            DtypeColumn { line: entry.map(|e| line_of(e.key.span.start)), name, claim }
        })
        .collect()
}

/// The canonical dtype a `supported_dtypes` key names (`torch.half` -> `torch.float16`).
fn dtype_key_name(entry: &torchcts_core::value::Entry) -> Option<String> {
    let text = entry.key.repr();
    let name = text.trim_matches(|c| c == '\'' || c == '"');
    let qualified = if name.starts_with("torch.") { name.to_string() } else { format!("torch.{name}") };
    accounting::canonical_dtype(&qualified).map(str::to_string)
}

/// The line of each `skip_ops` entry, by operator name.
fn skip_op_lines(manifest: &Dict, line_of: &dyn Fn(usize) -> usize) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    if let Some(ValueKind::List(items)) = manifest.get("skip_ops").map(|e| &e.value.kind) {
        for item in items {
            if let Some(name) = item.as_str() {
                out.entry(name.to_string()).or_insert_with(|| line_of(item.span.start));
            }
        }
    }
    out
}

fn capability_rows(
    manifest: &Dict,
    removed: &BTreeMap<String, (usize, usize, usize)>,
    line_of: &dyn Fn(usize) -> usize,
) -> Vec<EntryRow> {
    let declared = manifest.get("capabilities").and_then(|e| e.value.as_dict());
    let mut rows: Vec<EntryRow> = declared
        .map(|d| d.entries.iter())
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let name = e.key.as_str()?.to_string();
            let (removes, removed_passed, removed_failed) = removed.get(&name).copied().unwrap_or_default();
            Some(EntryRow {
                name,
                value: e.value.repr(),
                line: Some(line_of(e.key.span.start)),
                removes,
                removed_passed,
                removed_failed,
            })
        })
        .collect();
    // Capabilities the suite asks for that the manifest does not declare.
    for (name, &(removes, removed_passed, removed_failed)) in removed {
        if !rows.iter().any(|r| &r.name == name) {
            rows.push(EntryRow {
                name: name.clone(),
                value: "not declared".to_string(),
                line: None,
                removes,
                removed_passed,
                removed_failed,
            });
        }
    }
    rows
}

fn skip_op_rows(
    facts: &accounting::ManifestFacts,
    lines: &HashMap<String, usize>,
    removed: &BTreeMap<String, (usize, usize, usize)>,
) -> Vec<EntryRow> {
    let mut seen = Vec::new();
    facts
        .skip_ops
        .iter()
        .filter(|op| {
            let first = !seen.contains(op);
            seen.push(*op);
            first
        })
        .map(|op| {
            let (removes, removed_passed, removed_failed) = removed.get(op).copied().unwrap_or_default();
            EntryRow {
                name: op.clone(),
                value: String::new(),
                line: lines.get(op).copied(),
                removes,
                removed_passed,
                removed_failed,
            }
        })
        .collect()
}

fn tolerance_rows(
    manifest: &Dict,
    dtype_run: &HashMap<String, usize>,
    line_of: &dyn Fn(usize) -> usize,
) -> Vec<ToleranceRow> {
    let Some(dict) = manifest.get("tolerance_overrides").and_then(|e| e.value.as_dict()) else { return Vec::new() };
    dict.entries
        .iter()
        .map(|e| {
            let key = e.key.as_str().map(str::to_string).unwrap_or_else(|| e.key.repr());
            let (category, dtype) = key.split_once(':').unwrap_or((key.as_str(), ""));
            let dtype = accounting::canonical_dtype(dtype).map(str::to_string).unwrap_or_else(|| dtype.to_string());
            let default_golden =
                torchcts_core::schema::schema().tolerance_default(category, &dtype).map(|t| (t.golden[0], t.golden[1]));
            let override_tol = override_value(&e.value, default_golden);
            ToleranceRow {
                value: e.value.repr(),
                line: Some(line_of(e.key.span.start)),
                effect: tolerance_effect(override_tol, default_golden, category, &dtype),
                override_tol,
                default_golden,
                dtype_tests_run: dtype_run.get(&dtype).copied().unwrap_or(0),
                key,
            }
        })
        .collect()
}

/// (rtol, atol) of an override as torchcts reads it: `{"rtol", "atol"}` (a missing one keeps
/// the default) or a pair.
fn override_value(value: &torchcts_core::value::Value, default: Option<(f64, f64)>) -> Option<(f64, f64)> {
    match &value.kind {
        ValueKind::Dict(d) => {
            let get = |k: &str| d.get(k).and_then(|e| e.value.as_number());
            let (rtol, atol) = (get("rtol").or(default.map(|d| d.0))?, get("atol").or(default.map(|d| d.1))?);
            Some((rtol, atol))
        }
        ValueKind::List(items) | ValueKind::Tuple(items) if items.len() == 2 => {
            Some((items[0].as_number()?, items[1].as_number()?))
        }
        _ => None,
    }
}

fn tolerance_effect(over: Option<(f64, f64)>, default: Option<(f64, f64)>, category: &str, dtype: &str) -> String {
    let (Some(over), Some(default)) = (over, default) else {
        return match default {
            None => format!("torchcts has no default for {category} with {dtype}; its fallback applies"),
            Some(_) => "a value torchcts does not read as (rtol, atol)".to_string(),
        };
    };
    let one = |name: &str, from: f64, to: f64| {
        let how = if to == from {
            "unchanged".to_string()
        } else if from > 0.0 && to > from {
            format!("{}x looser", fmt_factor(to / from))
        } else if from > 0.0 && to < from {
            format!("{}x tighter", fmt_factor(from / to.max(f64::MIN_POSITIVE)))
        } else if to > from {
            "looser (the default is exact)".to_string()
        } else {
            "tighter".to_string()
        };
        format!("{name} {} -> {} ({how})", fmt_float(from), fmt_float(to))
    };
    format!("{}; {}", one("rtol", default.0, over.0), one("atol", default.1, over.1))
}

fn fmt_float(x: f64) -> String {
    accounting::pyfmt::float_repr(x)
}

fn fmt_factor(x: f64) -> String {
    if x >= 10.0 || (x - x.round()).abs() < 1e-9 {
        format!("{}", x.round())
    } else {
        format!("{x:.1}")
    }
}

fn run_rows(index: &EvidenceIndex, folders: &[PathBuf]) -> Vec<RunRow> {
    let mut newest: HashMap<*const RunInfo, usize> = HashMap::new();
    for (_, e) in index.records() {
        *newest.entry(Arc::as_ptr(&e.run)).or_default() += 1;
    }
    index
        .runs()
        .iter()
        .map(|run| RunRow {
            artifact: artifact_name(&run.path, folders),
            timestamp: run.timestamp.clone(),
            torch: run.torch_version.clone(),
            hardware: run.hardware_key.clone(),
            partial: run.partial,
            level: run
                .semantic_level_selection
                .as_ref()
                .and_then(|s| s.get("label"))
                .and_then(|l| l.as_str())
                .map(str::to_string),
            tests: run.tests,
            newest_records: newest.get(&Arc::as_ptr(run)).copied().unwrap_or(0),
        })
        .collect()
}

/// An entry's tally as the record shows it: artifacts and reports relative to their results
/// folder, error texts cut to their first line without machine paths.
pub fn without_machine_paths(tally: &mut torchcts_core::evidence::Tally, folders: &[PathBuf]) {
    let relative_run = |run: &mut torchcts_core::evidence::EvidenceRun| {
        run.artifact = artifact_name(Path::new(&run.artifact), folders);
        run.report = run.report.as_deref().map(|r| artifact_name(Path::new(r), folders));
    };
    if let Some(run) = tally.newest.as_mut() {
        relative_run(run);
    }
    for failure in &mut tally.failures {
        relative_run(&mut failure.run);
        failure.error = failure.error.as_deref().map(clean_message);
    }
}

/// An artifact's path from its results folder's parent (`results/cpu_history/x.json`).
pub fn artifact_name(path: &Path, folders: &[PathBuf]) -> String {
    for folder in folders {
        if let Ok(rest) = path.strip_prefix(folder) {
            let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            return format!("{name}/{}", rest.display());
        }
    }
    relative(path)
}

/// A path to show: relative to the working folder when under it, else as given when relative,
/// else its last two components (no absolute path of this machine in the record).
pub fn relative(path: &Path) -> String {
    if path.is_relative() {
        return path.display().to_string().trim_start_matches("./").to_string();
    }
    if let Some(rest) = std::env::current_dir().ok().and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
    {
        return rest.display().to_string();
    }
    let parts: Vec<String> =
        path.components().rev().take(2).map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}

/// The first non-empty line of a message, without absolute paths, at most [`ERROR_CHARS`].
pub fn clean_message(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let cleaned = strip_paths(line);
    match cleaned.char_indices().nth(ERROR_CHARS) {
        Some((at, _)) => format!("{}…", &cleaned[..at]),
        None => cleaned,
    }
}

/// Replaces each absolute path (`/a/b/c.py`, `C:\a\b`) by its part inside the torchcts
/// package or site-packages, else by its file name.
pub fn strip_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find_absolute(rest) {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let end = tail.find(|c: char| c.is_whitespace() || "'\"`,;:()[]<>".contains(c)).unwrap_or(tail.len());
        // A Windows drive's colon is part of the path.
        let end = if tail.as_bytes().get(1) == Some(&b':') {
            2 + tail[2..].find(|c: char| c.is_whitespace() || "'\"`,;()[]<>".contains(c)).unwrap_or(tail.len() - 2)
        } else {
            end
        };
        out.push_str(&short_path(&tail[..end]));
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Where the next absolute path starts: a `/` or `X:\` at the start of a word, followed by
/// a name and another separator.
fn find_absolute(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let at_word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || b"._-/\\".contains(&bytes[i - 1]));
        if at_word_start {
            let unix = bytes[i] == b'/'
                && text[i + 1..].contains('/')
                && bytes.get(i + 1).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.');
            let windows = bytes[i].is_ascii_alphabetic()
                && bytes.get(i + 1) == Some(&b':')
                && matches!(bytes.get(i + 2), Some(b'\\') | Some(b'/'));
            if unix || windows {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

fn short_path(path: &str) -> String {
    let unified = path.replace('\\', "/");
    for marker in ["/site-packages/", "/torchcts/"] {
        if let Some(i) = unified.rfind(marker) {
            return unified[i + 1..].to_string();
        }
    }
    unified.rsplit('/').find(|p| !p.is_empty()).unwrap_or("").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_paths_are_taken_out() {
        assert_eq!(
            strip_paths("AssertionError at /home/ci/venv/lib/python3.11/site-packages/torchcts/opinfo/x.py:12"),
            "AssertionError at site-packages/torchcts/opinfo/x.py:12"
        );
        assert_eq!(strip_paths("cannot open '/tmp/run-1/out.bin'"), "cannot open 'out.bin'");
        assert_eq!(strip_paths("ratio 1/2 and a/b stay"), "ratio 1/2 and a/b stay");
        assert_eq!(strip_paths(r"see C:\Users\me\torchcts\core\x.py"), "see torchcts/core/x.py");
    }

    #[test]
    fn messages_are_one_line_and_bounded() {
        assert_eq!(clean_message("\n  first line\nsecond"), "first line");
        let long = "x".repeat(500);
        assert_eq!(clean_message(&long).chars().count(), ERROR_CHARS + 1);
    }
}
