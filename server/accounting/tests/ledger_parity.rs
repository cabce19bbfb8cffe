//! The project known-segfault ledger read, validated, activated and expired as the real
//! torchcts does: `tests/parity/ledger/expected.json` is what torchcts' own
//! `load_known_segfaults` said of each file of `cases.json` (`regenerate.py`).

use accounting::ledger::{active_entries, expired_warnings, packaged_ledger, read_project_ledger};
use serde_json::Value;

fn corpus(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/ledger").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("the ledger corpus is committed")).unwrap()
}

#[test]
fn project_ledgers_read_as_torchcts_reads_them() {
    let cases = corpus("cases.json");
    let expected = corpus("expected.json");
    let torchcts = expected["recorded_with"]["torchcts"].as_str().unwrap();
    let packaged = packaged_ledger(torchcts);
    let cases = cases["cases"].as_array().unwrap();
    let expected = expected["cases"].as_array().unwrap();
    assert_eq!(cases.len(), expected.len(), "regenerate expected.json");
    assert!(cases.len() >= 50);
    let mut failures = Vec::new();
    for (case, want) in cases.iter().zip(expected) {
        let name = case["name"].as_str().unwrap();
        let text = case["text"].as_str().unwrap();
        let got = read_project_ledger(text.as_bytes(), "<DIR>/known_segfaults.json", &packaged);
        match (&got, want.get("error").and_then(Value::as_str)) {
            (Err(e), Some(message)) => {
                if e.message != message {
                    failures.push(format!("{name}:\n  real: {message}\n  ours: {}", e.message));
                }
                assert!(e.range.end <= text.len(), "{name}: the finding's range is inside the file");
            }
            (Ok(entries), None) => {
                let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
                let want_ids: Vec<&str> = want["ids"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
                if ids != want_ids {
                    failures.push(format!("{name}: ids {ids:?}, real {want_ids:?}"));
                }
                for (check, want_check) in
                    case["checks"].as_array().unwrap().iter().zip(want["checks"].as_array().unwrap())
                {
                    let s = |k: &str| check[k].as_str().unwrap();
                    let active = active_entries(entries, s("backend"), s("torch"), Some(s("hardware")));
                    let active_ids: Vec<&str> = active.iter().map(|e| e.id.as_str()).collect();
                    let warnings = expired_warnings(&active, s("today"));
                    let want_active: Vec<&str> =
                        want_check["active"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
                    let want_warnings: Vec<&str> =
                        want_check["warnings"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
                    if active_ids != want_active || warnings != want_warnings {
                        failures.push(format!(
                            "{name} {check}: ours {active_ids:?} {warnings:?}, real {want_active:?} {want_warnings:?}"
                        ));
                    }
                }
            }
            (got, want) => failures.push(format!("{name}: ours {got:?}, real {want:?}")),
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// A project entry for one test: that test (and no other) is recorded as
/// `known_backend_crash` on its backend, in the layouts whose node ids it names, unless it
/// is isolated in a subprocess; an entry that matches by dispatcher is matched against the
/// tests' metadata (the parity cases `project_ledger_*` check it against the real tool).
#[test]
fn a_project_entry_records_its_test_as_a_known_crash() {
    use accounting::{account, Inventory, LevelSelection, ManifestFacts, RunLayout};
    let inv = Inventory::embedded();
    let mut facts = ManifestFacts::default();
    let count = |facts: &ManifestFacts| {
        let acc = account(inv, facts, "cpu", LevelSelection::Cumulative(8));
        let crashes: Vec<String> = acc
            .records()
            .iter()
            .filter(|r| acc.reason_name(r.reason) == "known_backend_crash")
            .map(|r| acc.node_id(r))
            .collect();
        (crashes, acc.executable, acc.not_modelled.clone())
    };
    let (none, executable, _) = count(&facts);
    assert!(none.is_empty(), "no packaged entry is for cpu");
    let acc = account(inv, &facts, "cpu", LevelSelection::Cumulative(8));
    let target = acc.node_ref_id(acc.executable_nodes()[3]);
    let entry = |id: &str, nodeid: &str, extra: &str| {
        format!(
            r#"{{"id": "{id}", "backend": "cpu", "match": "nodeid", "nodeid": "{nodeid}", "dispatcher": "aten::x",
            "evidence_scope": "exact_node", "classification": "confirmed_backend_crash", "expected_signal": "SIGSEGV",
            "repro": {{"script": "s", "case": "c"}}, "reason": "r", "owner": "o", "pytorch_min": null,
            "pytorch_max": null, "hardware": "any", "review_after": "2030-01-01"{extra}}}"#
        )
    };
    let ledger = |entries: &[String]| {
        let text = format!(r#"{{"version": 1, "known_segfaults": [{}]}}"#, entries.join(","));
        read_project_ledger(text.as_bytes(), "known_segfaults.json", &[]).expect("a valid ledger")
    };
    facts.project_ledger.entries = ledger(&[entry("mine", &format!("torchcts/{target}"), "")]);
    let (crashes, with_entry, _) = count(&facts);
    assert_eq!(crashes, vec![target.clone()]);
    assert_eq!(with_entry, executable - 1);
    // Rooted at the package, node ids are package-relative: `torchcts/...` names nothing.
    facts.layout = RunLayout { rooted_at_package: true, node_prefix: String::new() };
    assert!(count(&facts).0.is_empty());
    facts.project_ledger.entries = ledger(&[entry("mine", &target, "")]);
    assert_eq!(count(&facts).0, vec![target.clone()]);
    facts.layout = RunLayout::default();
    // Isolated in a subprocess: it runs.
    let subprocess = r#", "execution_policy": "subprocess""#;
    facts.project_ledger.entries = ledger(&[entry("mine", &format!("torchcts/{target}"), subprocess)]);
    assert!(count(&facts).0.is_empty());
    // The more specific entry decides: a glob-constrained record beats the bare subprocess one.
    let glob = r#", "constraints": {"nodeid_glob": "torchcts/*"}"#;
    facts.project_ledger.entries = ledger(&[
        entry("a", &format!("torchcts/{target}"), subprocess),
        entry("b", &format!("torchcts/{target}"), glob),
    ]);
    assert_eq!(count(&facts).0, vec![target.clone()]);
    // A dispatcher entry is matched by the tests' metadata: no test's dispatcher is `aten::x`,
    // and nothing is left to a note.
    let dispatcher = entry("d", "x", r#", "constraints": {"suite": "operators"}"#)
        .replace(r#""match": "nodeid""#, r#""match": "dispatcher""#)
        .replace("exact_node", "constrained_metadata");
    facts.project_ledger.entries = ledger(std::slice::from_ref(&dispatcher));
    let (crashes, _, notes) = count(&facts);
    assert!(crashes.is_empty());
    assert!(!notes.iter().any(|n| n.contains("entry d ")), "{notes:?}");
    // `aten::addmm.default` names the tests whose dispatcher is `aten::addmm`, in operators
    // (those that run with this manifest: the addmm path-shape cases).
    facts.project_ledger.entries = ledger(&[dispatcher.replace("aten::x", "aten::addmm.default")]);
    let (crashes, _, _) = count(&facts);
    assert_eq!(crashes.len(), 5, "{crashes:?}");
    assert!(
        crashes
            .iter()
            .all(|c| c
                .contains("operators/test_operator_path_shapes.py::test_operator_path_shape_case[matmul_addmm_addmm_")),
        "{crashes:?}"
    );
}
