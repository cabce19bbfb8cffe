//! One host (issue 30): `torchcts-lsp check --format json`, the language server's
//! diagnostics and the Python API's `check` (`api::check_report`, what `torchcts_lsp.check`
//! returns) give the same findings for every parity case, in a project whose
//! `[tool.torchcts-lsp]` sets `ignore`, `python` (a venv whose modules can be listed, with
//! Python 3.12) and `results` (a real torchcts run's records), plus a case for the evidence
//! and one for the importable modules. Each of the three once built its own analysis input
//! and differed on exactly these (the API ignored the project, the CLI's modules came from
//! another environment than its Python, the server ignored the project's `python`).

mod support;

use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::lsp_client::{file_uri, LspClient};
use support::{copy_dir as copy_tree, repo_root as repo};
use torchcts_lsp::api::{self, Source};

/// The clock of all three (the evidence's ages).
const NOW: &str = "2026-12-02T16:24:12Z";

/// `ignore`s one code of ours (silenced everywhere) and one of check-manifest's (kept: the
/// real tool's verdict).
const PYPROJECT: &str = "[tool.torchcts-lsp]\nignore = [\"dtype-key-ignored\", \"unknown-key\"]\npython = \".venv/bin/python\"\nresults = [\"results\"]\n";

/// `lsp_evidence`'s manifest: `add` float32 failed in the newest run (`run-evidence`) and
/// `sub`, skipped here, passed (`skip-op-passes`).
const EVIDENCE_MANIFEST: &str = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {torch.float32: True},\n    \"semantic_level\": 2,\n    \"capabilities\": {\"inference\": True},\n    \"skip_ops\": [\"sub\", \"div\"],\n    \"tolerance_overrides\": {\"elementwise:torch.float32\": {\"rtol\": 1e-4}},\n}\n";

/// Imports a module beside it (importable) and one nowhere (`No module named 'orch'`).
const IMPORTS_MANIFEST: &str = "import torch\nimport helpers\nimport orch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {torch.float32: True},\n    \"semantic_level\": 2,\n    \"capabilities\": {\"inference\": True},\n}\n";

/// The project: every parity case under `cases/`, the two extra cases, the venv, the
/// results folder and the configuration. Returns it and the cases' manifests by name.
fn project() -> (PathBuf, BTreeMap<String, PathBuf>) {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-host-parity-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cases = BTreeMap::new();
    for entry in std::fs::read_dir(repo().join("tests/parity/check/cases")).unwrap().flatten() {
        if entry.path().join("manifest.py").is_file() {
            let name = entry.file_name().to_string_lossy().into_owned();
            copy_tree(&entry.path(), &dir.join("cases").join(&name));
            cases.insert(name.clone(), dir.join("cases").join(&name).join("manifest.py"));
        }
    }
    assert!(cases.len() >= 40, "the parity corpus has only {} cases", cases.len());
    let evidence = dir.join("cases/zz_evidence/manifest.py");
    std::fs::create_dir_all(evidence.parent().unwrap()).unwrap();
    std::fs::write(&evidence, EVIDENCE_MANIFEST).unwrap();
    // Last changed on 2026-11-01, before the runs (no git: the file's time is its lines').
    let file = std::fs::File::options().write(true).open(&evidence).unwrap();
    file.set_modified(std::time::UNIX_EPOCH + Duration::from_secs(1_793_491_200)).unwrap();
    cases.insert("zz_evidence".into(), evidence);
    let imports = dir.join("cases/zz_imports/manifest.py");
    std::fs::create_dir_all(imports.parent().unwrap()).unwrap();
    std::fs::write(&imports, IMPORTS_MANIFEST).unwrap();
    std::fs::write(imports.with_file_name("helpers.py"), "").unwrap();
    cases.insert("zz_imports".into(), imports);
    // A venv that sees no system site-packages, with torch and torchcts (only what the host
    // reads: dist-info versions, module folders, the Python version).
    let venv = dir.join(".venv");
    std::fs::create_dir_all(venv.join("bin")).unwrap();
    std::fs::write(venv.join("bin/python"), "").unwrap();
    std::fs::write(
        venv.join("pyvenv.cfg"),
        "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n",
    )
    .unwrap();
    let site = venv.join("lib/python3.12/site-packages");
    for (package, version) in [("torch", accounting::newest_torch_release()), ("torchcts", "0.4.1")] {
        support::install_package(&site, package, version);
    }
    let focused = repo().join("tests/fixtures/runs/artifacts/focused/results");
    for file in ["cpu_vm_23gb_latest.json", "cpu_vm_23gb_history/2026-11-30T16-24-12Z.json", "cpu_vm_23gb_report.md"] {
        let target = dir.join("results").join(file);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(focused.join(file), target).unwrap();
    }
    // A later run (statuses edited from a real artifact, see its README): add FAILs, sub PASSes.
    let failing = repo().join("tests/fixtures/runs/artifacts/derived/failing.json");
    std::fs::copy(failing, dir.join("results/cpu_vm_23gb_history/2026-12-01T09-00-00Z.json")).unwrap();
    std::fs::write(dir.join("pyproject.toml"), PYPROJECT).unwrap();
    (dir, cases)
}

/// A finding as all three can say it: code, 1-based start line, severity, message.
type Said = BTreeSet<(String, u64, String, String)>;

fn said_in_report(report: &Value) -> Said {
    report["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("no findings in {report}"))
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["range"]["start"]["line"].as_u64().unwrap(),
                f["severity"].as_str().unwrap().to_lowercase(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn said_in_diagnostics(diagnostics: &Value) -> Said {
    diagnostics
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let severity = match d["severity"].as_u64() {
                Some(1) => "error",
                Some(2) => "warning",
                Some(3) => "information",
                _ => "hint",
            };
            (
                d["code"].as_str().unwrap().to_string(),
                d["range"]["start"]["line"].as_u64().unwrap() + 1,
                severity.to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// `check --format json` on every case at once (one JSON line each), by case.
fn cli(dir: &Path, cases: &BTreeMap<String, PathBuf>) -> BTreeMap<String, Value> {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .current_dir(dir)
        .env_remove("VIRTUAL_ENV")
        .env_remove("TORCHCTS_LSP_PYTHON")
        .env("TORCHCTS_LSP_NOW", NOW)
        .args(["check", "--format", "json"])
        .args(cases.values())
        .output()
        .unwrap();
    let by_file: BTreeMap<String, Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .map(|report| (report["file"].as_str().unwrap().to_string(), report))
        .collect();
    cases
        .iter()
        .map(|(name, path)| {
            let report = by_file.get(&path.display().to_string()).unwrap_or_else(|| panic!("no report for {name}"));
            (name.clone(), report.clone())
        })
        .collect()
}

/// The server's last diagnostics of every case, once it is quiet (the inventory loaded, the
/// evidence read).
fn server(dir: &Path, cases: &BTreeMap<String, PathBuf>) -> BTreeMap<String, Value> {
    let mut client =
        LspClient::spawn_with_env(&[], &["VIRTUAL_ENV", "TORCHCTS_LSP_PYTHON"], &[("TORCHCTS_LSP_NOW", NOW)]);
    client.request("initialize", json!({"processId": null, "rootUri": file_uri(dir), "capabilities": {}}));
    client.notify("initialized", json!({}));
    let uris: BTreeMap<String, String> = cases.iter().map(|(name, path)| (file_uri(path), name.clone())).collect();
    for (uri, name) in &uris {
        client.open(uri, &std::fs::read_to_string(&cases[name]).unwrap(), 1);
    }
    // Counts are sent once the inventory is decoded; the refresh it starts follows.
    client.wait_for(|m| m["method"] == "torchcts/status");
    let mut last: BTreeMap<String, Value> = BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let published: Vec<Value> = client
            .drain_for(Duration::from_secs(2))
            .into_iter()
            .filter(|m| m["method"] == "textDocument/publishDiagnostics")
            .collect();
        let quiet = published.is_empty();
        for message in published {
            if let Some(name) = message["params"]["uri"].as_str().and_then(|u| uris.get(u)) {
                last.insert(name.clone(), message["params"]["diagnostics"].clone());
            }
        }
        if quiet && last.len() == cases.len() {
            return last;
        }
        assert!(
            Instant::now() < deadline,
            "the server did not publish for every case: {} of {}",
            last.len(),
            cases.len()
        );
    }
}

#[test]
fn check_the_server_and_the_python_api_say_the_same_in_the_same_project() {
    let (dir, cases) = project();
    let cli = cli(&dir, &cases);
    let server = server(&dir, &cases);
    // SAFETY (edition 2021: safe): the only test in this binary; the API reads the clock.
    std::env::set_var("TORCHCTS_LSP_NOW", NOW);
    std::env::remove_var("VIRTUAL_ENV");
    let mut differences = Vec::new();
    let mut everything = Said::new();
    for (name, path) in &cases {
        let api = api::check_report(Source::Path(path)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (from_cli, from_server, from_api) =
            (said_in_report(&cli[name]), said_in_diagnostics(&server[name]), said_in_report(&api));
        if from_cli != from_server || from_cli != from_api {
            differences
                .push(format!("{name}:\n  check:  {from_cli:?}\n  server: {from_server:?}\n  api:    {from_api:?}"));
        }
        assert_eq!(cli[name]["python"], "3.12", "{name}: the project's python answers for regexes");
        assert_eq!(api["python"], "3.12", "{name}: the project's python answers for regexes");
        everything.extend(from_cli);
    }
    assert!(differences.is_empty(), "{} cases differ:\n{}", differences.len(), differences.join("\n"));

    // What the project sets shows in what all three said.
    let codes: BTreeSet<&str> = everything.iter().map(|s| s.0.as_str()).collect();
    assert!(!codes.contains("dtype-key-ignored"), "ignored everywhere");
    assert!(codes.contains("unknown-key"), "check-manifest's own finding stays though ignored");
    let unignored = cases.values().any(|path| {
        let text = std::fs::read_to_string(path).unwrap();
        let analysis = torchcts_core::analyze(&text, &torchcts_core::AnalysisInput::default());
        analysis.findings.iter().any(|f| f.code == "dtype-key-ignored")
    });
    assert!(unignored, "some case has the ignored finding, so ignoring it is shown");
    let evidence = said_in_report(&cli["zz_evidence"]);
    let evidence_codes: Vec<&str> = evidence.iter().map(|s| s.0.as_str()).collect();
    assert!(
        evidence_codes.contains(&"run-evidence") && evidence_codes.contains(&"skip-op-passes"),
        "the results folder's records are findings: {evidence:?}"
    );
    let imports = said_in_report(&cli["zz_imports"]);
    assert!(
        imports.iter().any(|s| s.0 == "load-error" && s.3.contains("No module named 'orch'")),
        "a module the venv cannot import fails as it would: {imports:?}"
    );
    assert!(
        !imports.iter().any(|s| s.0 == "load-error" && s.3.contains("helpers")),
        "the manifest's folder is importable: {imports:?}"
    );

    // The API's text is a manifest.py in the current folder, with the same surroundings.
    std::env::set_current_dir(cases["zz_imports"].parent().unwrap()).unwrap();
    let text = api::check_report(Source::Text(IMPORTS_MANIFEST)).unwrap();
    assert_eq!(said_in_report(&text), imports, "the text path has the importable modules too");
    let _ = std::fs::remove_dir_all(&dir);
}
