//! Parity of `torchcts-lsp skips` with the real `torchcts show-skips`, end to end: the case
//! manifest is evaluated by our static evaluator (not by Python), then accounted from the
//! embedded inventory. Expected outputs: tests/parity/skips/cases/*/expected.json, produced
//! by torchcts 0.4.1 + torch 2.12.1 (tests/parity/skips/regenerate.py).

mod support;

use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::repo_root as root;

fn manifest_of(case: &Path, expected: &Value) -> PathBuf {
    match expected["template"].as_str() {
        Some(t) if !t.is_empty() => root().join(format!("tests/parity/check/cases/template_{t}/manifest.py")),
        _ => case.join("manifest.py"),
    }
}

/// `expected.json.gz` (or plain `expected.json`) as written by regenerate.py.
fn read_expected(case: &Path) -> Value {
    let gz = case.join("expected.json.gz");
    let text = if gz.exists() {
        let mut s = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap()).read_to_string(&mut s).expect("gzip JSON");
        s
    } else {
        std::fs::read_to_string(case.join("expected.json")).unwrap()
    };
    serde_json::from_str(&text).expect("expected output is JSON")
}

#[test]
fn skips_cli_matches_real_show_skips() {
    let cases_dir = root().join("tests/parity/skips/cases");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&cases_dir)
        .expect("the skips corpus is committed")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("expected.json.gz").exists() || p.join("expected.json").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "only {} show-skips cases with expected output", cases.len());
    let mut failures = Vec::new();
    let mut summary = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let expected = read_expected(case);
        // A project ledger with hardware-specific entries was recorded on one machine: the
        // CLI reads the machine it runs on, so the case compares only there (the accounting
        // parity test takes the recorded machine).
        if let Some(host) = expected["host"].as_object() {
            let here = this_host();
            if host.get("node").and_then(|v| v.as_str()) != here.0.as_deref()
                || host.get("memory_gb").and_then(|v| v.as_u64()) != here.1
            {
                summary.push(format!("{name}: recorded on another machine ({host:?}), not compared here"));
                continue;
            }
        }
        let manifest = manifest_of(case, &expected);
        let mut args: Vec<String> =
            expected["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
        // The inventory of the torch release the real output was produced with (never the
        // one the test machine's environment happens to have).
        if let Some(torch) = expected["torch"].as_str().or(expected["tool"]["torch"].as_str()) {
            args.extend(["--torch".to_string(), torch.to_string()]);
        }
        // And of the torchcts release (the real tool's version, as `regenerate.py` records it).
        if let Some(torchcts) = expected["tool"]["torchcts"].as_str() {
            args.extend(["--torchcts".to_string(), torchcts.to_string()]);
        }
        // How the real run named its tests (null: pytest rooted them at the package).
        match expected["node_prefix"].as_str() {
            Some(prefix) => args.extend(["--node-prefix".to_string(), prefix.to_string()]),
            None => args.push("--rooted-at-package".to_string()),
        }
        let output = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
            .arg("skips")
            .arg(&manifest)
            .args(&args)
            .args(["--format", "json"])
            .output()
            .expect("run torchcts-lsp skips");
        let ours: Value = match serde_json::from_slice(&output.stdout) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: no JSON ({e}): {}", String::from_utf8_lossy(&output.stderr)));
                continue;
            }
        };
        let mut problems = Vec::new();
        for field in ["collected", "deselected", "included"] {
            if ours[field] != expected[field] {
                problems.push(format!("{field} {} vs {}", ours[field], expected[field]));
            }
        }
        let our_counts: Vec<(String, u64)> = ours["reason_counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["reason"].as_str().unwrap().to_string(), r["count"].as_u64().unwrap()))
            .collect();
        let expected_counts: Vec<(String, u64)> = expected["reason_counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r[0].as_str().unwrap().to_string(), r[1].as_u64().unwrap()))
            .collect();
        if our_counts != expected_counts {
            problems.push(format!("reason counts {our_counts:?} vs {expected_counts:?}"));
        }
        let mut multiset: BTreeMap<(String, String), i64> = BTreeMap::new();
        for r in expected["records"].as_array().unwrap() {
            *multiset.entry((r[0].as_str().unwrap().to_string(), r[1].as_str().unwrap().to_string())).or_default() += 1;
        }
        for r in ours["records"].as_array().unwrap() {
            *multiset
                .entry((r["printed_id"].as_str().unwrap().to_string(), r["reason"].as_str().unwrap().to_string()))
                .or_default() -= 1;
        }
        let differing: Vec<_> = multiset.iter().filter(|(_, n)| **n != 0).take(5).collect();
        if !differing.is_empty() {
            problems.push(format!("records differ (+expected/-ours), first: {differing:?}"));
        }
        summary.push(format!(
            "{name}: {}/{} collected ({} deselected)",
            ours["included"], ours["collected"], ours["deselected"]
        ));
        if !problems.is_empty() {
            failures.push(format!("{name}: {}", problems.join("; ")));
        }
    }
    println!("skips parity: {} cases\n{}", cases.len(), summary.join("\n"));
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// What `get_hardware_key` reads of this machine: its name and memory in GB, as the CLI reads
/// them (`host::project_ledger::host_facts`).
fn this_host() -> (Option<String>, Option<u64>) {
    let node = std::fs::read_to_string("/proc/sys/kernel/hostname").ok().map(|s| s.trim_end().to_string());
    let memory = std::fs::read_to_string("/proc/meminfo").ok().and_then(|info| {
        let kib: u64 = info.lines().find(|l| l.starts_with("MemTotal:"))?.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024 / (1 << 30))
    });
    (node, memory)
}
