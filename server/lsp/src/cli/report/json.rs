//! The support record as JSON: everything the page shows, every test with its outcome. The
//! counts have `skips --format json`'s names and values (`collected`, `deselected`,
//! `included`, `executable`, `reason_counts`, `levels`).

use super::model::{Cell, EntryRow, Outcome, SupportRecord, Tally};
use serde_json::{json, Value};
use torchcts_core::evidence::TestStatus;

pub fn to_json(r: &SupportRecord) -> Value {
    let mut cumulative = 0;
    let levels: Vec<Value> = r
        .levels
        .iter()
        .map(|l| {
            cumulative += l.run;
            json!({
                "level": l.level, "selected": l.selected, "collected": l.collected, "run": l.run,
                "filtered": l.filtered, "run_cumulative": cumulative,
                "filtered_by_reason": pairs(&l.by_reason, "reason", "count"),
            })
        })
        .collect();
    let operators: Vec<Value> = r
        .operators
        .iter()
        .map(|o| {
            let cells: Vec<Value> =
                o.cells.iter().zip(&r.dtypes).filter_map(|(c, d)| c.as_ref().map(|c| cell_json(c, &d.name))).collect();
            json!({"operator": o.name, "skip_ops_line": o.skip_line, "cells": cells})
        })
        .collect();
    let e = &r.evidence;
    json!({
        "manifest": r.manifest,
        "device": {"name": r.device, "assumed": r.device_assumed},
        "inventory": {"torchcts": r.torchcts, "torch": r.torch, "note": r.inventory_note},
        "selection": r.selection,
        "generated_at": r.generated_at,
        "collected": r.collected,
        "deselected": r.deselected,
        "included": r.included,
        "executable": r.executable,
        "reason_counts": pairs(&r.reason_counts, "reason", "count"),
        "levels": levels,
        "dtypes": r.dtypes.iter().map(|d| json!({"dtype": d.name, "claim": d.claim, "line": d.line})).collect::<Vec<_>>(),
        "matrix": operators,
        "capabilities": r.capabilities.iter().map(entry_json).collect::<Vec<_>>(),
        "skip_ops": r.skip_ops.iter().map(entry_json).collect::<Vec<_>>(),
        "tolerance_overrides": r.tolerances.iter().map(|t| json!({
            "key": t.key, "value": t.value, "line": t.line,
            "override": t.override_tol.map(|(r, a)| json!({"rtol": r, "atol": a})),
            "default_golden": t.default_golden.map(|(r, a)| json!({"rtol": r, "atol": a})),
            "effect": t.effect, "dtype_tests_run": t.dtype_tests_run,
        })).collect::<Vec<_>>(),
        "evidence": {
            "folders": e.folders,
            "partial": e.partial,
            "tests": tally_json(&e.tally),
            "records_of_tests_not_run_now": e.records_not_run_now,
            "runs": e.runs.iter().map(|run| json!({
                "artifact": run.artifact, "timestamp": run.timestamp, "torch": run.torch,
                "hardware": run.hardware, "partial": run.partial, "level": run.level,
                "tests": run.tests, "newest_records": run.newest_records,
            })).collect::<Vec<_>>(),
            "problems": e.problems.iter().map(|(p, m)| json!({"file": p, "message": m})).collect::<Vec<_>>(),
            "history_files_left_out": e.omitted,
        },
        "entries": r.entries.iter().map(|(line, e)| {
            let mut value = serde_json::to_value(e).unwrap_or(Value::Null);
            value["line"] = json!(line);
            value
        }).collect::<Vec<_>>(),
        "review": r.review.as_ref().map(|rv| json!({"against": rv.against, "diff": rv.json})),
        "notes": r.notes,
    })
}

fn pairs(items: &[(String, usize)], key: &str, value: &str) -> Vec<Value> {
    items.iter().map(|(k, n)| json!({key: k, value: n})).collect()
}

pub(super) fn status_name(status: TestStatus) -> &'static str {
    match status {
        TestStatus::Passed => "passed",
        TestStatus::Failed => "failed",
        TestStatus::Errored => "errored",
        TestStatus::Skipped => "skipped",
        TestStatus::Crashed => "crashed",
        TestStatus::KnownCrash => "known_backend_crash",
    }
}

fn tally_json(t: &Tally) -> Value {
    json!({
        "run": t.tests, "filtered": t.filtered, "passed": t.passed, "failed": t.failed,
        "errored": t.errored, "crashed": t.crashed, "known_backend_crash": t.known_crash, "skipped": t.skipped, "no_record": t.no_record,
        "filtered_by_reason": pairs(&t.by_reason, "reason", "count"),
    })
}

fn cell_json(c: &Cell, dtype: &str) -> Value {
    let tests: Vec<Value> = c
        .tests
        .iter()
        .map(|t| match &t.outcome {
            Outcome::Runs(observed) => json!({
                "node_id": t.node_id, "level": t.level, "runs": true,
                "status": observed.as_ref().map(|o| status_name(o.status)).unwrap_or("no_record"),
                "message": observed.as_ref().and_then(|o| o.message.clone()),
                "run": observed.as_ref().map(|o| o.run),
            }),
            Outcome::Filtered { reason, cause } => json!({
                "node_id": t.node_id, "level": t.level, "runs": false, "reason": reason, "cause": cause,
            }),
        })
        .collect();
    json!({"dtype": dtype, "anchor": format!("c{}", c.id), "tally": tally_json(&c.tally), "tests": tests})
}

fn entry_json(e: &EntryRow) -> Value {
    json!({
        "name": e.name, "value": e.value, "line": e.line, "removes": e.removes,
        "removed_with_records": {"passed": e.removed_passed, "failed_or_errored": e.removed_failed},
    })
}
