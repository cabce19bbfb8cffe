//! Issue 26 in the editor, over stdio: the evidence lens, hover and findings on every entry
//! kind, from a real torchcts run's artifacts (`tests/fixtures/runs/artifacts/focused`:
//! `add` float32 PASS, `sub` float32 ERROR on cpu, 2026-11-30T16:24:12Z) and then a run with
//! failures landing in the results folder (`artifacts/derived/failing.json`, derived from a
//! real artifact with statuses edited, see its README: `add` FAIL, `sub` PASS, 2026-12-01),
//! which the server learns of through `workspace/didChangeWatchedFiles`.

mod support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use support::lsp_client::{file_uri, vscode_capabilities, with_capabilities, LspClient};
use support::{copy_file as copy, run_artifacts as artifacts, TempDir};

const MANIFEST: &str = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {torch.float32: True},\n    \"semantic_level\": 2,\n    \"capabilities\": {\"inference\": True},\n    \"skip_ops\": [\"sub\", \"div\"],\n    \"tolerance_overrides\": {\"elementwise:torch.float32\": {\"rtol\": 1e-4}},\n}\n";

/// A manifest folder with the real focused run in `results/`.
/// The folder is removed when the test ends (the guard).
fn workspace(name: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::fresh(&format!("torchcts-lsp-evidence-{name}"));
    let focused = artifacts().join("focused/results");
    for file in ["cpu_vm_23gb_latest.json", "cpu_vm_23gb_history/2026-11-30T16-24-12Z.json", "cpu_vm_23gb_report.md"] {
        copy(&focused.join(file), &dir.join("results").join(file));
    }
    let manifest = dir.join("manifest.py");
    write_before_the_runs(&manifest, MANIFEST);
    (dir, manifest)
}

/// Writes the manifest as last changed on 2026-11-01, before the runs (not a git file: its
/// modification time is when its lines changed).
fn write_before_the_runs(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_793_491_200)).unwrap();
}

/// (line, title) of the lenses without a command (the evidence lenses).
fn evidence_lenses(client: &mut LspClient, uri: &str) -> Vec<(u64, String)> {
    let lenses = client.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    lenses
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["command"]["command"] == "")
        .map(|l| (l["range"]["start"]["line"].as_u64().unwrap(), l["command"]["title"].as_str().unwrap().to_string()))
        .collect()
}

fn hover(client: &mut LspClient, uri: &str, line: u32, character: u32) -> String {
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}});
    client.request("textDocument/hover", at)["contents"]["value"].as_str().unwrap_or_default().to_string()
}

fn coded(diagnostics: &Value) -> Vec<(u64, String, String)> {
    diagnostics["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["source"] != "torchcts" || d["code"].is_string())
        .filter(|d| {
            ["run-evidence", "skip-op-passes", "stale-evidence", "evidence-other-torch"]
                .contains(&d["code"].as_str().unwrap_or(""))
        })
        .map(|d| {
            (
                d["range"]["start"]["line"].as_u64().unwrap(),
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn lenses_hovers_and_findings_on_every_entry_kind_refresh_when_a_run_lands() {
    let (dir, manifest) = workspace("lands");
    let uri = file_uri(&manifest);
    // 2026-12-02T16:24:12Z: the focused run is 2 days old.
    let mut client = LspClient::spawn_with_env(&[], &[], &[("TORCHCTS_LSP_NOW", "2026-12-02T16:24:12Z")]);
    client.initialize(with_capabilities(
        vscode_capabilities(),
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}),
    ));
    let registration = client.wait_for(|m| m["method"] == "client/registerCapability");
    let globs: Vec<&str> = registration["params"]["registrations"][0]["registerOptions"]["watchers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w["globPattern"].as_str())
        .collect();
    for glob in ["**/results/**/*.json", "**/.torchcts-lsp/results/**/*.json"] {
        assert!(globs.contains(&glob), "{globs:?}");
    }
    client.open(&uri, MANIFEST, 1);
    client.wait_for(|m| m["method"] == "torchcts/status");

    // The real run: `add` passed; `sub` errored, but `sub` is skipped, so the float32 entry
    // lets in only `add` of the two; the skip_ops item "sub" removes sub's 4 tests.
    let lenses = evidence_lenses(&mut client, &uri);
    let line = |n: u64| lenses.iter().find(|(l, _)| *l == n).map(|(_, t)| t.clone()).unwrap_or_default();
    assert!(
        line(4).starts_with("cpu: 1 passed · ") && line(4).ends_with(" not run yet, newest 2 d ago"),
        "{lenses:#?}"
    );
    assert_eq!(line(7), "cpu: 1 errored · 3 not run yet, newest 2 d ago", "{lenses:#?}");
    // The override loosens the float32 forward tests of elementwise operators (add is one).
    assert!(line(8).starts_with("cpu: 1 passed · "), "{lenses:#?}");
    // semantic_level: every test the manifest runs; `sub`'s are not among them.
    assert!(line(5).starts_with("cpu: 1 passed · "), "{lenses:#?}");
    // The capability gates no test of level 2 with a record; the div item has no record.
    assert_eq!(lenses.len(), 4, "{lenses:#?}");

    let sub = hover(&mut client, &uri, 7, 18);
    assert!(sub.contains("**Runs on `cpu`** (skipped operator sub, 4 tests): cpu: 1 errored · 3 not run yet"), "{sub}");
    assert!(sub.contains("- ERROR `opinfo/test_opinfo_forward.py::test_op_forward[clean-sub-torch.float32]`: All sample inputs for sub failed before comparison"), "{sub}");
    assert!(sub.contains("(2026-11-30T16:24:12"), "{sub}");
    // The hardware key is text from the results file: markdown-escaped (issue 35).
    assert!(sub.contains("torch 2.12.1+cu130, cpu\\_vm\\_23gb;"), "{sub}");
    let history = file_uri(&dir.join("results/cpu_vm_23gb_history/2026-11-30T16-24-12Z.json"));
    let report = file_uri(&dir.join("results/cpu_vm_23gb_report.md"));
    assert!(sub.contains(&format!("[artifact]({history}) · [report]({report})")), "{sub}");

    let first = coded(&client.diagnostics(&uri, Some(1)));
    assert!(first.iter().all(|(_, code, _)| code != "run-evidence" && code != "skip-op-passes"), "{first:#?}");

    // A later run lands (statuses edited from a real artifact): add FAILs, sub PASSes.
    let landed = dir.join("results/cpu_vm_23gb_history/2026-12-01T09-00-00Z.json");
    copy(&artifacts().join("derived/failing.json"), &landed);
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": file_uri(&landed), "type": 1}]}));
    client.wait_for(|m| m["method"] == "workspace/codeLens/refresh");
    let after = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["diagnostics"].to_string().contains("skip-op-passes")
    });
    let found = coded(&after["params"]);
    let codes: Vec<(u64, &str)> = found.iter().map(|(l, c, _)| (*l, c.as_str())).collect();
    assert_eq!(codes, vec![(4, "run-evidence"), (7, "skip-op-passes")], "{found:#?}");
    assert!(found[0].2.starts_with("1 of the tests the torch.float32 entry lets in failed in the newest runs on `cpu` (newest 2026-12-01T09:00:01.000000Z): `opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]`"), "{}", found[0].2);
    assert!(found[1].2.starts_with("`sub` passes now: its tests ran in a run without this entry and none failed on `cpu` (1 passed, 3 not run yet)"), "{}", found[1].2);

    let lenses = evidence_lenses(&mut client, &uri);
    let line = |n: u64| lenses.iter().find(|(l, _)| *l == n).map(|(_, t)| t.clone()).unwrap_or_default();
    assert!(line(4).starts_with("cpu: 1 failed · ") && line(4).ends_with(", newest 1 d ago"), "{lenses:#?}");
    assert_eq!(line(7), "cpu: 1 passed · 3 not run yet, newest 1 d ago", "{lenses:#?}");
    let f32 = hover(&mut client, &uri, 4, 30);
    assert!(f32.contains("- FAIL `opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]`: AssertionError: Tensor-likes are not close! (2026-12-01T09:00:01.000000Z, torch 2.12.1+cu130, cpu\\_vm\\_23gb;"), "{f32}");

    // The quick fix removes the item.
    let diagnostic = after["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "skip-op-passes")
        .unwrap()
        .clone();
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": {"diagnostics": [diagnostic], "only": ["quickfix"]}}),
    );
    let fix = actions.as_array().unwrap().iter().find(|a| a["title"] == "Remove 'sub' from skip_ops").expect("the fix");
    let edits = &fix["edit"]["changes"][uri.as_str()];
    assert_eq!(edits.as_array().unwrap().len(), 1, "{fix:#}");
    assert_eq!(edits[0]["newText"], "");
    assert_eq!(edits[0]["range"]["start"], json!({"line": 7, "character": 17}));
    assert_eq!(edits[0]["range"]["end"], json!({"line": 7, "character": 24}));

    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lens lines are kept between requests (issue 35: counted again only when the facts,
/// the entries or the evidence change): the same answer twice, the same lines one line lower
/// after a comment line is typed above them, new counts once a results file changes, and the
/// first counts again once it is removed.
#[test]
fn kept_lens_lines_answer_as_computed_ones_and_follow_the_results_files() {
    let (dir, manifest) = workspace("kept");
    let uri = file_uri(&manifest);
    let mut client = LspClient::spawn_with_env(&[], &[], &[("TORCHCTS_LSP_NOW", "2026-12-02T16:24:12Z")]);
    client.initialize(vscode_capabilities());
    client.open(&uri, MANIFEST, 1);
    client.wait_for(|m| m["method"] == "torchcts/status");

    let first = evidence_lenses(&mut client, &uri);
    assert!(first.contains(&(7, "cpu: 1 errored · 3 not run yet, newest 2 d ago".to_string())), "{first:#?}");
    assert_eq!(first.len(), 4, "{first:#?}");
    assert_eq!(evidence_lenses(&mut client, &uri), first);

    // A comment line above: the facts are the same, every entry one line lower.
    let commented = format!("# the cpu manifest\n{MANIFEST}");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": commented}]}),
    );
    client.diagnostics(&uri, Some(2));
    let lower: Vec<(u64, String)> = first.iter().map(|(line, title)| (line + 1, title.clone())).collect();
    assert_eq!(evidence_lenses(&mut client, &uri), lower);

    // A later run lands (add FAILs, sub PASSes): the counts change.
    let landed = dir.join("results/cpu_vm_23gb_history/2026-12-01T09-00-00Z.json");
    copy(&artifacts().join("derived/failing.json"), &landed);
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": file_uri(&landed), "type": 1}]}));
    let after = evidence_lenses(&mut client, &uri);
    assert!(after.contains(&(8, "cpu: 1 passed · 3 not run yet, newest 1 d ago".to_string())), "{after:#?}");
    let f32 = after.iter().find(|(line, _)| *line == 5).map(|(_, t)| t.as_str()).unwrap_or_default();
    assert!(f32.starts_with("cpu: 1 failed · "), "{after:#?}");
    assert_eq!(evidence_lenses(&mut client, &uri), after);

    // Removed again (no file to read, only one gone): the first counts come back.
    std::fs::remove_file(&landed).unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": file_uri(&landed), "type": 3}]}));
    assert_eq!(evidence_lenses(&mut client, &uri), lower);

    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_suppression_comment_silences_an_evidence_finding() {
    let (dir, manifest) = workspace("suppressed");
    copy(&artifacts().join("derived/failing.json"), &dir.join("results/cpu_vm_23gb_history/2026-12-01T09-00-00Z.json"));
    let text =
        MANIFEST.replace("{torch.float32: True},", "{torch.float32: True},  # torchcts-lsp: ignore[run-evidence]");
    write_before_the_runs(&manifest, &text);
    let uri = file_uri(&manifest);
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    client.open(&uri, &text, 1);
    let published = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["diagnostics"].to_string().contains("skip-op-passes")
    });
    let found = coded(&published["params"]);
    assert_eq!(found.iter().map(|f| f.1.as_str()).collect::<Vec<_>>(), vec!["skip-op-passes"], "{found:#?}");
    assert!(!published["params"]["diagnostics"].to_string().contains("unused-suppression"));
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn records_older_than_the_manifest_are_said() {
    let (dir, manifest) = workspace("stale");
    // Saved after the run (no git: the file's modification time is every line's change).
    std::fs::write(&manifest, MANIFEST).unwrap();
    let uri = file_uri(&manifest);
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    client.open(&uri, MANIFEST, 1);
    let published = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["diagnostics"].to_string().contains("stale-evidence")
    });
    let found = coded(&published["params"]);
    let mut stale: Vec<u64> = found.iter().filter(|f| f.1 == "stale-evidence").map(|f| f.0).collect();
    stale.sort();
    // Every entry with records: float32, semantic_level, the sub item, the override.
    assert_eq!(stale, vec![4, 5, 7, 8], "{found:#?}");
    let severity =
        published["params"]["diagnostics"].as_array().unwrap().iter().find(|d| d["code"] == "stale-evidence").unwrap()
            ["severity"]
            .clone();
    assert_eq!(severity, 4, "a hint");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

// The same evidence in the CLI: `check` and `analyze` with `--results DIR` (and
// pyproject.toml `results`), in every output format.

fn cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .args(args)
        .env("TORCHCTS_LSP_NOW", "2026-12-02T16:24:12Z")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// The real run, and the derived failing one in a second folder (as a CI artifact would be).
fn with_ci_artifact(name: &str) -> (TempDir, PathBuf, PathBuf) {
    let (dir, manifest) = workspace(name);
    let ci = dir.join("ci-artifact");
    copy(&artifacts().join("derived/failing.json"), &ci.join("cpu_vm_23gb_history/2026-12-01T09-00-00Z.json"));
    (dir, manifest, ci)
}

#[test]
fn check_with_results_reports_the_evidence_findings_in_every_format() {
    let (dir, manifest, ci) = with_ci_artifact("cli-check");
    let (m, results, ci) = (manifest.to_str().unwrap(), dir.join("results"), ci.to_str().unwrap());
    let results = results.to_str().unwrap();

    // Without --results: check-manifest's output only, whatever lies beside the manifest.
    let plain = cli(&["check", m]);
    assert_eq!(String::from_utf8_lossy(&plain.stderr), "");

    let text = cli(&["check", "--results", results, "--results", ci, m]);
    assert_eq!(text.status.code(), Some(0), "evidence never changes check-manifest's exit code");
    assert_eq!(String::from_utf8_lossy(&text.stdout), "Manifest is valid!\n");
    let stderr = String::from_utf8_lossy(&text.stderr).into_owned();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    // One `PATH:LINE:COL: CODE message` line each, as check prints all of its own findings.
    assert!(
        lines[0].starts_with(&format!("{m}:5:26: run-evidence 1 of the tests the torch.float32 entry lets in failed")),
        "{stderr}"
    );
    assert!(lines[1].starts_with(&format!("{m}:8:18: skip-op-passes `sub` passes now")), "{stderr}");

    let json = cli(&["check", "--format", "json", "--results", results, "--results", ci, m]);
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    let ours: Vec<(String, u64)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["origin"] == "lsp" && f["code"] != "not-evaluated")
        .map(|f| (f["code"].as_str().unwrap().to_string(), f["range"]["start"]["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(ours, vec![("run-evidence".to_string(), 5), ("skip-op-passes".to_string(), 8)]);
    let fix = report["findings"].as_array().unwrap().iter().find(|f| f["code"] == "skip-op-passes").unwrap();
    assert_eq!(fix["data"], json!({"skip_op": "sub"}));

    let github = cli(&["check", "--format", "github", "--results", results, "--results", ci, m]);
    let annotations = String::from_utf8_lossy(&github.stdout).into_owned();
    assert!(
        annotations.contains(",line=5,col=26,endLine=5,endColumn=39,title=run-evidence::1 of the tests"),
        "{annotations}"
    );
    assert!(annotations.contains("::notice file="), "{annotations}");

    let sarif = cli(&["check", "--format", "sarif", "--results", results, "--results", ci, m]);
    let log: Value = serde_json::from_slice(&sarif.stdout).unwrap();
    let rules: Vec<&str> =
        log["runs"][0]["results"].as_array().unwrap().iter().filter_map(|r| r["ruleId"].as_str()).collect();
    assert!(rules.contains(&"run-evidence") && rules.contains(&"skip-op-passes"), "{rules:?}");

    // A corrupt file in a results folder is said once and skipped.
    std::fs::write(dir.join("results/cpu_vm_23gb_history/2026-12-02T00-00-00Z.json"), "{\"metadata\": ").unwrap();
    let corrupt = cli(&["check", "--results", results, m]);
    let stderr = String::from_utf8_lossy(&corrupt.stderr).into_owned();
    assert_eq!(
        stderr.matches("2026-12-02T00-00-00Z.json: invalid result JSON (truncated or corrupt?)").count(),
        1,
        "{stderr}"
    );
    assert_eq!(corrupt.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_project_configuration_names_the_results_and_analyze_shows_each_entry() {
    let (dir, manifest, _) = with_ci_artifact("cli-config");
    std::fs::write(dir.join("pyproject.toml"), "[tool.torchcts-lsp]\nresults = [\"results\", \"ci-artifact\"]\n")
        .unwrap();
    let m = manifest.to_str().unwrap();
    let text = cli(&["analyze", m]);
    let out = String::from_utf8_lossy(&text.stdout).into_owned();
    let section = &out[out.find("== Evidence on `cpu` (2 runs with records in the results folders)").expect(&out)..];
    let lines: Vec<&str> = section.lines().collect();
    assert!(
        lines[1].starts_with("    5  supported_dtypes / torch.float32 (the torch.float32 entry): cpu: 1 failed · "),
        "{section}"
    );
    assert!(lines[1].ends_with(" not run yet, newest 1 d ago"), "{section}");
    assert_eq!(lines[2], "         FAIL opinfo/test_opinfo_forward.py::test_op_forward[clean-add-torch.float32]: AssertionError: Tensor-likes are not close!");
    assert_eq!(lines[3], "    8  skip_ops / sub (skipped operator sub): cpu: 1 passed · 3 not run yet, newest 1 d ago");
    assert!(out.contains(":5:26: warning [torchcts-lsp run-evidence] 1 of the tests"), "{out}");

    let json = cli(&["analyze", "--format", "json", m]);
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    let entries = report["evidence"]["entries"].as_array().unwrap();
    let f32 = entries.iter().find(|e| e["key_path"] == json!(["supported_dtypes", "torch.float32"])).unwrap();
    assert_eq!(f32["kind"], "dtype");
    assert_eq!(f32["claimed"], true);
    assert_eq!((f32["tally"]["failed"].as_u64(), f32["tally"]["passed"].as_u64()), (Some(1), Some(0)));
    assert_eq!(f32["tally"]["failures"][0]["status"], "failed");
    assert_eq!(f32["tally"]["newest"]["partial"], false);
    let kinds: Vec<&str> = entries.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert_eq!(kinds, vec!["dtype", "capability", "skip_op", "skip_op", "tolerance_override", "semantic_level"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 31, item 6: runs recorded with `--device cpu` for a manifest whose `device_name` is
/// `mps` are no evidence on `mps`, but "0 runs" alone says nothing: every view says what the
/// folders hold and how to see it.
#[test]
fn runs_of_another_device_are_said_with_how_to_see_them() {
    let (dir, manifest) = workspace("other-device");
    let text = MANIFEST.replace("\"device_name\": \"cpu\"", "\"device_name\": \"mps\"");
    write_before_the_runs(&manifest, &text);
    let m = manifest.to_str().unwrap();
    let results = dir.join("results");
    let r = results.to_str().unwrap();
    let note = "no runs on `mps` in the results folders, which hold 1 run on `cpu`: to see them, pass `--device cpu`";
    let out = cli(&["analyze", m, "--results", r]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        stdout.contains(&format!("== Evidence on `mps` (0 runs with records in the results folders)\nNote: {note}\n")),
        "{stdout}"
    );
    let json = cli(&["analyze", "--format", "json", m, "--results", r]);
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["evidence"]["other_devices"], json!({"cpu": 1}));
    // What the note says to do shows the records.
    let out = cli(&["analyze", m, "--results", r, "--device", "cpu"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(stdout.contains("== Evidence on `cpu` (1 run with records in the results folders)"), "{stdout}");
    assert!(!stdout.contains("no runs on"), "{stdout}");
    let record = cli(&["report", m, "--format", "json", "--torch", "2.12.1"]);
    let record: Value = serde_json::from_slice(&record.stdout).unwrap();
    assert!(record["notes"].as_array().unwrap().iter().any(|n| n == note), "{:#}", record["notes"]);

    // The editor's hover on an entry: the same, with its own way to switch.
    let uri = file_uri(&manifest);
    let mut client = LspClient::spawn_with_env(&[], &[], &[("TORCHCTS_LSP_NOW", "2026-12-02T16:24:12Z")]);
    client.initialize(vscode_capabilities());
    client.open(&uri, &text, 1);
    client.wait_for(|m| m["method"] == "torchcts/status");
    let shown = hover(&mut client, &uri, 4, 27);
    assert!(
        shown.contains(
            "**Runs**: no runs on `mps` in the results folders, which hold 1 run on `cpu`: to see them, set the `device` setting to `cpu`."
        ),
        "{shown}"
    );
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 35: after one new history file the server reads that file alone, not the folder
/// again. The count is the server's own (`evidence: N results files read ...`, written to the
/// log file at debug level by each question whose refresh read something).
#[test]
fn after_one_new_history_file_the_server_reads_that_file_alone() {
    let (dir, manifest) = workspace("reads");
    // Three earlier runs in the history (the focused run's file under two more names).
    let history = dir.join("results/cpu_vm_23gb_history");
    for earlier in ["2026-11-28T10-00-00Z.json", "2026-11-29T10-00-00Z.json"] {
        copy(&history.join("2026-11-30T16-24-12Z.json"), &history.join(earlier));
    }
    let log = dir.join("server.log");
    let uri = file_uri(&manifest);
    let mut client = LspClient::spawn_with_env(&[], &[], &[("TORCHCTS_LSP_NOW", "2026-12-02T16:24:12Z")]);
    let capabilities = with_capabilities(
        vscode_capabilities(),
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}),
    );
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": capabilities,
               "initializationOptions": {"torchcts": {"logLevel": "debug", "logFile": log.to_str().unwrap()}}}),
    );
    client.notify("initialized", json!({}));
    client.open(&uri, MANIFEST, 1);
    client.wait_for(|m| m["method"] == "torchcts/status");
    let reads = || -> Vec<usize> {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines()
            .filter_map(|l| l.split("evidence: ").nth(1))
            .filter_map(|rest| rest.strip_suffix(" on cpu").and_then(|r| r.split(' ').next()?.parse().ok()))
            .collect()
    };
    let first = evidence_lenses(&mut client, &uri);
    assert_eq!(first.len(), 4, "{first:#?}");
    // The first read: the three history files and the `_latest.json` reference (each parsed).
    assert_eq!(reads(), vec![4], "{}", std::fs::read_to_string(&log).unwrap_or_default());
    // Asked again with nothing new: nothing read.
    evidence_lenses(&mut client, &uri);
    hover(&mut client, &uri, 6, 6);
    assert_eq!(reads(), vec![4]);

    let landed = history.join("2026-12-01T09-00-00Z.json");
    copy(&artifacts().join("derived/failing.json"), &landed);
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": file_uri(&landed), "type": 1}]}));
    let after = evidence_lenses(&mut client, &uri);
    assert_ne!(after, first, "the new run is in the counts");
    evidence_lenses(&mut client, &uri);
    assert_eq!(reads(), vec![4, 1], "{}", std::fs::read_to_string(&log).unwrap_or_default());
    client.shutdown();
}
