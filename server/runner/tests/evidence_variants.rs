//! The evidence index against torchcts's own loader (issue 35, item 3): each folder of
//! `tests/fixtures/runs/artifacts/variants/` was given to
//! `torchcts.core.result_artifacts.load_result_artifact` by `tools/runs/artifact_variants.py`,
//! which wrote what it did into `expected.json`: a run with its record counts, a file it
//! refused, or a payload without `metadata`/`results` objects. The index must count the same
//! records, and name a problem where the loader gives no run.

use std::collections::BTreeMap;
use std::path::Path;

use runner::evidence::{EvidenceIndex, Limits};
use serde_json::Value;

#[test]
fn counts_equal_torchcts_loader_on_every_variant() {
    let variants = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/runs/artifacts/variants");
    let expected: BTreeMap<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(variants.join("expected.json")).unwrap()).unwrap();
    assert!(expected.len() >= 38);
    let mut differences = Vec::new();
    for (name, want) in &expected {
        let index = EvidenceIndex::read(&[variants.join(name)], "cpu", Limits::default());
        let got = match index.runs() {
            [run] if index.problems().is_empty() => {
                let mut statuses = BTreeMap::new();
                for (_, e) in index.records() {
                    let status = e.status.torchcts_status();
                    *statuses.entry(status.to_string()).or_insert(0) += 1;
                }
                serde_json::json!({"kind": "run", "records": run.tests, "statuses": statuses})
            }
            // Damage inside a run that was read is a note, not a refusal.
            [run] if index.problems().iter().all(|p| p.message.contains("left out, not records")) => {
                serde_json::json!({"kind": "run", "records": run.tests})
            }
            // The loader refused the `_latest.json`: a problem names it (or the file it names);
            // a valid history file beside it is still a run of its own.
            _ if !index.problems().is_empty() => serde_json::json!({"kind": "no run"}),
            _ => {
                serde_json::json!({"kind": "unexpected", "runs": index.runs().len(), "problems": format!("{:?}", index.problems())})
            }
        };
        let same = match want["kind"].as_str() {
            Some("run") => {
                got["kind"] == "run"
                    && got["records"] == want["records"]
                    && (got.get("statuses").is_none() || got["statuses"] == want["statuses"])
            }
            _ => got["kind"] == "no run",
        };
        if !same {
            differences.push(format!("{name}: torchcts {want}, index {got}"));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
