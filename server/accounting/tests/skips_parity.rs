//! Parity with the real `torchcts show-skips`: every case of
//! `tests/parity/skips/cases.json` (outputs committed by
//! `tests/parity/skips/regenerate.py`) is accounted with the embedded inventory
//! and compared: collected, deselected and included counts, every per-reason
//! count (and their first-seen order), and the multiset of (printed node id,
//! reason) records, their order, and every detail text (the capability list of
//! `capability_not_declared`, which torchcts joins in Python set order, is
//! compared as a set; see docs/inventory.md).

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

use accounting::{account, render_show_skips, Inventory, LevelSelection, ManifestFacts, RunLayout};
use serde_json::Value;

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/skips")
}

fn arg<'a>(args: &'a [String], flag: &str) -> Option<&'a str> {
    args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).map(String::as_str)
}

fn selection(args: &[String], facts: &ManifestFacts) -> LevelSelection {
    if let Some(n) = arg(args, "--level") {
        return LevelSelection::Cumulative(n.parse().unwrap());
    }
    if let Some(n) = arg(args, "--level-exact") {
        return LevelSelection::Exact(n.parse().unwrap());
    }
    if let Some(r) = arg(args, "--level-range") {
        let (a, b) = r.split_once(':').unwrap();
        return LevelSelection::Range(a.parse().unwrap(), b.parse().unwrap());
    }
    LevelSelection::from_manifest(facts).unwrap()
}

/// Detail equality up to what legitimately differs between runs of the real
/// tool: `capability_not_declared` lists the missing capabilities in Python set
/// order, so those are compared as sets.
fn detail_equal(reason: &str, expected: &str, got: &str) -> bool {
    if expected == got {
        return true;
    }
    if reason != "capability_not_declared" {
        return false;
    }
    let names = |d: &str| {
        let mut v: Vec<String> =
            d.trim_start_matches("requires capabilities: ").split(", ").map(str::to_string).collect();
        v.sort();
        v
    };
    names(expected) == names(got)
}

#[test]
fn show_skips_parity() {
    let dir = corpus_dir();
    let cases: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("cases.json")).unwrap()).unwrap();
    let mut failures = Vec::new();
    let mut summary = Vec::new();
    let mut compared = 0;
    for case in cases["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let cdir = dir.join("cases").join(name);
        let Ok(expected_gz) = std::fs::read(cdir.join("expected.json.gz")) else {
            failures.push(format!("{name}: no expected.json.gz (run regenerate.py)"));
            continue;
        };
        let mut expected_text = String::new();
        flate2::read::GzDecoder::new(&expected_gz[..]).read_to_string(&mut expected_text).unwrap();
        let expected: Value = serde_json::from_str(&expected_text).unwrap();
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(cdir.join("manifest.json")).unwrap()).unwrap();
        let mut facts = ManifestFacts::from_tagged_json(&manifest).unwrap();
        // How the real run named its tests (null: rooted at the package).
        facts.layout = match expected["node_prefix"].as_str() {
            Some(prefix) => RunLayout { rooted_at_package: false, node_prefix: prefix.to_string() },
            None => RunLayout { rooted_at_package: true, node_prefix: String::new() },
        };
        // The project's own known-segfault ledger, laid beside the manifest for the run.
        if let Ok(bytes) = std::fs::read(cdir.join(accounting::ledger::PROJECT_LEDGER_FILE)) {
            let torchcts = expected["tool"]["torchcts"].as_str().unwrap_or(accounting::versions::EMBEDDED_TORCHCTS);
            let packaged = accounting::ledger::packaged_ledger(torchcts);
            facts.project_ledger.entries =
                accounting::ledger::read_project_ledger(&bytes, "known_segfaults.json", &packaged)
                    .expect("a valid ledger");
            facts.project_ledger.torch = expected["tool"]["torch"].as_str().unwrap_or_default().to_string();
            // The machine the real run saw, for hardware-specific entries.
            facts.project_ledger.host = accounting::ledger::HostFacts {
                node: expected["host"]["node"].as_str().map(str::to_string),
                memory_gb: expected["host"]["memory_gb"].as_u64(),
            };
        }
        let args: Vec<String> =
            case["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
        let device = facts.resolve_device(arg(&args, "--device"));
        let sel = selection(&args, &facts);
        // A case produced with another torch release (and another torchcts release) is
        // accounted with that release's inventory.
        let torchcts = case["torchcts"].as_str().unwrap_or(accounting::versions::EMBEDDED_TORCHCTS);
        let inv = match case["torch"].as_str() {
            Some(torch) => Inventory::for_release(torchcts, torch)
                .unwrap_or_else(|| panic!("{name}: no inventory for torchcts {torchcts} with torch {torch}")),
            None => Inventory::embedded(),
        };
        if let Some(tool) = expected["tool"]["torchcts"].as_str() {
            assert_eq!(tool, inv.meta.torchcts_version, "{name}: recorded with another torchcts");
        }
        let t = std::time::Instant::now();
        let acc = account(inv, &facts, &device, sel);
        let elapsed = t.elapsed();
        compared += 1;

        let mut diffs = Vec::new();
        let num = |k: &str| expected[k].as_u64().unwrap() as usize;
        for (k, got) in [("collected", acc.collected), ("deselected", acc.deselected), ("included", acc.included)] {
            if num(k) != got {
                diffs.push(format!("{k}: expected {}, got {got}", num(k)));
            }
        }
        let exp_counts: Vec<(String, usize)> = expected["reason_counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_str().unwrap().to_string(), p[1].as_u64().unwrap() as usize))
            .collect();
        let got_counts: Vec<(String, usize)> =
            acc.reason_counts.iter().map(|(r, n)| (acc.reason_name(*r).to_string(), *n)).collect();
        if exp_counts != got_counts {
            let e: HashMap<_, _> = exp_counts.iter().cloned().collect();
            let g: HashMap<_, _> = got_counts.iter().cloned().collect();
            let mut keys: Vec<&String> = e.keys().chain(g.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let (a, b) = (e.get(k).copied().unwrap_or(0), g.get(k).copied().unwrap_or(0));
                if a != b {
                    diffs.push(format!("count {k}: expected {a}, got {b}"));
                }
            }
            if diffs.iter().all(|d| !d.starts_with("count ")) {
                diffs.push(format!(
                    "reason order: expected {:?}, got {:?}",
                    exp_counts.iter().map(|x| &x.0).collect::<Vec<_>>(),
                    got_counts.iter().map(|x| &x.0).collect::<Vec<_>>()
                ));
            }
        }
        // Multiset of (node, reason) and details.
        let mut exp_records: HashMap<(String, String), Vec<String>> = HashMap::new();
        for r in expected["records"].as_array().unwrap() {
            exp_records
                .entry((r[0].as_str().unwrap().to_string(), r[1].as_str().unwrap().to_string()))
                .or_default()
                .push(r[2].as_str().unwrap().to_string());
        }
        let mut missing_in_got = exp_records.clone();
        let mut extra = Vec::new();
        let mut detail_diffs = Vec::new();
        let mut set_order = 0usize;
        for rec in &acc.records() {
            let key = (acc.printed_id(rec), acc.reason_name(rec.reason).to_string());
            match missing_in_got.get_mut(&key) {
                Some(v) if !v.is_empty() => {
                    let got = acc.detail(rec);
                    if let Some(p) = v.iter().position(|d| *d == got) {
                        v.remove(p);
                    } else if let Some(p) = v.iter().position(|d| detail_equal(&key.1, d, &got)) {
                        v.remove(p);
                        set_order += 1;
                    } else {
                        let exp = v.remove(0);
                        detail_diffs.push(format!("{} {}: expected detail {exp:?}, got {got:?}", key.0, key.1));
                    }
                }
                _ => extra.push(format!("{} {} {}", key.0, key.1, acc.detail(rec))),
            }
        }
        let missing: Vec<String> = missing_in_got
            .into_iter()
            .flat_map(|((n, r), v)| v.into_iter().map(move |d| format!("{n} {r} {d}")))
            .collect();
        if !missing.is_empty() {
            diffs.push(format!(
                "{} expected records missing, e.g. {:?}",
                missing.len(),
                &missing[..missing.len().min(8)]
            ));
        }
        if !extra.is_empty() {
            diffs.push(format!("{} unexpected records, e.g. {:?}", extra.len(), &extra[..extra.len().min(8)]));
        }
        if !detail_diffs.is_empty() {
            diffs.push(format!(
                "{} detail differences, e.g. {:?}",
                detail_diffs.len(),
                &detail_diffs[..detail_diffs.len().min(5)]
            ));
        }
        // Record order: the printed list in the same order.
        if diffs.is_empty() {
            let exp_order: Vec<(&str, &str)> = expected["records"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r[0].as_str().unwrap(), r[1].as_str().unwrap()))
                .collect();
            let got_order: Vec<(String, String)> =
                acc.records().iter().map(|r| (acc.printed_id(r), acc.reason_name(r.reason).to_string())).collect();
            if let Some(i) = exp_order.iter().zip(&got_order).position(|(a, b)| a.0 != b.0 || a.1 != b.1) {
                diffs.push(format!("record order differs at {i}: expected {:?}, got {:?}", exp_order[i], got_order[i]));
            }
            // The rendered header block equals the real one.
            let text = render_show_skips(&acc);
            let header_expected = format!("  NOT-RUN AUDIT ({} records)", num("header_records"));
            if !text.contains(&header_expected) {
                diffs.push("rendered header differs".into());
            }
        }
        summary.push(format!(
            "{name:<22} {device:<11} {:<18} collected {:>6}/{:<6} deselected {:>6}/{:<6} records {:>6}/{:<6} {} ({:.2} ms)",
            format!("{sel:?}"),
            acc.collected,
            num("collected"),
            acc.deselected,
            num("deselected"),
            acc.record_count,
            expected["records"].as_array().unwrap().len(),
            if diffs.is_empty() { "OK" } else { "DIFF" },
            elapsed.as_secs_f64() * 1000.0,
        ));
        if set_order > 0 {
            summary.push(format!("{:<22} {set_order} capability lists in another set order (compared as sets)", ""));
        }
        for d in &diffs {
            failures.push(format!("{name}: {d}"));
        }
    }
    eprintln!("show-skips parity ({compared} cases):");
    for s in &summary {
        eprintln!("  {s}");
    }
    for f in &failures {
        eprintln!("  FAIL {f}");
    }
    assert!(compared >= 10, "expected at least 10 parity cases, found {compared}");
    assert!(failures.is_empty(), "{} parity differences", failures.len());
}
