//! [`build`]: the support record joined from an accounting and the runs' records.

use super::*;
use crate::evidence::TestStatus;
use crate::value::{Dict, ValueKind};
use accounting::diff::Cause;
use accounting::{Accounting, NodeRef, PyValue};
use std::collections::{BTreeMap, HashMap};

/// The runs' records as the IO layer read them: by the accounting's node id (as
/// [`Sources::normalize`] writes it), with paths relative and messages cut to a line.
#[derive(Debug, Clone, Default)]
pub struct RecordedRuns {
    /// The folders read, relative.
    pub folders: Vec<String>,
    pub runs: Vec<RunRow>,
    pub records: HashMap<String, RecordedTest>,
    /// Files that could not be used: (relative path, message).
    pub problems: Vec<(String, String)>,
    /// History files left out by the bound.
    pub omitted: usize,
}

/// The newest record of one test on the device.
#[derive(Debug, Clone)]
pub struct RecordedTest {
    pub status: TestStatus,
    /// The first line of its error or skip reason, cut, without machine paths.
    pub message: Option<String>,
    /// Index into [`RecordedRuns::runs`].
    pub run: usize,
    /// Its run did not complete.
    pub partial: bool,
}

/// The inputs of [`build`] besides the accounting.
pub struct Sources<'a> {
    pub manifest_name: String,
    pub text: &'a str,
    pub line_index: &'a crate::LineIndex,
    pub manifest: &'a Dict,
    pub facts: &'a accounting::ManifestFacts,
    pub recorded: &'a RecordedRuns,
    /// A node id as the records are keyed (the IO layer's normalisation).
    pub normalize: &'a dyn Fn(&str) -> String,
    pub inventory_label: (String, String, Option<String>),
}

/// Every test the accounting knows, as (operator, dtype, test), with what it joined.
struct Joined {
    rows: Vec<(String, String, TestRow)>,
    /// The ids of the tests that run.
    run_ids: std::collections::HashSet<String>,
    /// Per capability: (tests filtered with it as the cause, of them passed, failed).
    cap_removed: BTreeMap<String, (usize, usize, usize)>,
}

/// The accounting's tests joined with their newest records: those that run with what they
/// showed, those filtered with their reason and cause.
fn join(acc: &Accounting, src: &Sources) -> Joined {
    let recorded = src.recorded;
    let observe = |id: &str| {
        recorded.records.get(id).map(|e| Observed { status: e.status, message: e.message.clone(), run: e.run })
    };
    let mut rows: Vec<(String, String, TestRow)> = Vec::with_capacity(acc.collected + 64);
    let mut run_ids = std::collections::HashSet::new();
    for node in acc.executable_nodes() {
        let id = (src.normalize)(&acc.node_ref_id(node));
        let (op, dt) = subject(acc, node);
        let level = acc.node_level(node);
        let observed = observe(&id);
        run_ids.insert(id.clone());
        rows.push((op, dt, TestRow { node_id: id, level, outcome: Outcome::Runs(observed) }));
    }
    let mut cap_removed: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for rec in acc.records() {
        let id = (src.normalize)(&acc.node_id(&rec));
        let (op, dt) = subject(acc, rec.node);
        let cause = accounting::diff::cause_of(acc, &rec);
        let seen = recorded.records.get(&id).map(|e| e.status);
        let count = |slot: &mut (usize, usize, usize)| {
            slot.0 += 1;
            match seen {
                Some(TestStatus::Passed) => slot.1 += 1,
                Some(status) if status.is_failure() => slot.2 += 1,
                _ => {}
            }
        };
        if let Cause::Capability(names) = &cause {
            for n in names {
                count(cap_removed.entry(n.clone()).or_default());
            }
        }
        let outcome = Outcome::Filtered { reason: acc.reason_name(rec.reason).to_string(), cause: cause.label() };
        rows.push((op, dt, TestRow { node_id: id, level: rec.level, outcome }));
    }
    Joined { rows, run_ids, cap_removed }
}

/// The record of one manifest.
pub fn build(acc: &Accounting, src: &Sources) -> SupportRecord {
    let recorded = src.recorded;
    let line_of_span = |start: usize| src.line_index.line_of(start) + 1;
    let dtypes_dict = src.manifest.get("supported_dtypes").and_then(|e| e.value.as_dict());
    let Joined { rows, run_ids, cap_removed } = join(acc, src);
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
    let operators = operator_rows(by_op, &skip_lines);
    let records_not_run_now = recorded.records.keys().filter(|id| !run_ids.contains(*id)).count();
    let partial = recorded.records.iter().any(|(id, e)| e.partial && run_ids.contains(id));
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
        // Their counts are the entries' ([`SupportRecord::attach_entries`]).
        skip_ops: skip_op_rows(src.facts, &skip_lines),
        tolerances: tolerance_rows(src.manifest, &dtype_run, &line_of_span),
        evidence: EvidenceSummary {
            folders: recorded.folders.clone(),
            runs: recorded.runs.clone(),
            tally: evidence_tally,
            partial,
            records_not_run_now,
            problems: recorded.problems.clone(),
            omitted: recorded.omitted,
        },
        entries: Vec::new(),
        notes: Vec::new(),
        review: None,
        generated_at: None,
    }
}

/// The matrix's rows, by operator name, each cell numbered; the row of tests without an
/// operator last.
fn operator_rows(by_op: BTreeMap<String, Vec<Option<Cell>>>, skip_lines: &HashMap<String, usize>) -> Vec<OperatorRow> {
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
    if let Some(i) = operators.iter().position(|o| o.name == NO_OPERATOR) {
        let row = operators.remove(i);
        operators.push(row);
    }
    operators
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
fn dtype_key_name(entry: &crate::value::Entry) -> Option<String> {
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

fn skip_op_rows(facts: &accounting::ManifestFacts, lines: &HashMap<String, usize>) -> Vec<EntryRow> {
    let mut seen = Vec::new();
    facts
        .skip_ops
        .iter()
        .filter(|op| {
            let first = !seen.contains(op);
            seen.push(*op);
            first
        })
        .map(|op| EntryRow {
            name: op.clone(),
            value: String::new(),
            line: lines.get(op).copied(),
            removes: 0,
            removed_passed: 0,
            removed_failed: 0,
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
                crate::schema::schema().tolerance_default(category, &dtype).map(|t| (t.golden[0], t.golden[1]));
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
fn override_value(value: &crate::value::Value, default: Option<(f64, f64)>) -> Option<(f64, f64)> {
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
