//! The server counts with the embedded inventory of the torch the workspace's `.venv` has,
//! found from its dist-info folders without running Python, and names those versions in
//! `torchcts/status` and in hovers with counts; a torch outside torchcts' range is said
//! once, as a warning, and the newest inventory is used.

mod support;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use support::lsp_client::{file_uri, vscode_capabilities, LspClient};

const MANIFEST: &str = "import torch\n\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {torch.float32: True},\n    \"semantic_level\": 2,\n    \"capabilities\": {\"inference\": True},\n}\n";

/// A workspace with `manifest.py` and a `.venv` whose site-packages has torch `torch` and
/// torchcts 0.4.1 (dist-info folders only; nothing can run).
fn workspace(name: &str, torch: &str) -> PathBuf {
    workspace_with(name, torch, "0.4.1")
}

/// The same with torchcts `torchcts`.
fn workspace_with(name: &str, torch: &str, torchcts: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-torchenv-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let site = dir.join(".venv/lib/python3.11/site-packages");
    std::fs::create_dir_all(dir.join(".venv/bin")).unwrap();
    std::fs::write(dir.join(".venv/bin/python"), "").unwrap();
    for (package, version) in [("torch", torch), ("torchcts", torchcts)] {
        let info = site.join(format!("{package}-{version}.dist-info"));
        std::fs::create_dir_all(&info).unwrap();
        std::fs::write(info.join("METADATA"), format!("Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"))
            .unwrap();
    }
    std::fs::write(dir.join("manifest.py"), MANIFEST).unwrap();
    dir
}

fn start(dir: &Path) -> (LspClient, String) {
    start_with(dir, MANIFEST)
}

/// `start` with `text` as the manifest the editor opens.
fn start_with(dir: &Path, text: &str) -> (LspClient, String) {
    let mut client = LspClient::spawn_with(&[], &["VIRTUAL_ENV", "TORCHCTS_LSP_PYTHON"]);
    let root = file_uri(dir);
    client.request("initialize", json!({"processId": null, "rootUri": root, "capabilities": vscode_capabilities()}));
    client.notify("initialized", json!({}));
    let uri = file_uri(&dir.join("manifest.py"));
    client.open(&uri, text, 1);
    (client, uri)
}

fn status(client: &mut LspClient) -> Value {
    client.wait_for(|m| m["method"] == "torchcts/status")["params"].clone()
}

#[test]
fn a_workspace_venv_selects_its_torch_release() {
    // The oldest embedded release: a different inventory from the default whenever several
    // are embedded.
    let oldest = *accounting::embedded_torch_releases().last().unwrap();
    let dir = workspace("oldest", oldest);
    let (mut client, uri) = start(&dir);
    let status = status(&mut client);
    assert_eq!(status["countsFor"], format!("torchcts 0.4.1 with torch {oldest}"), "{status}");
    let expected_run = {
        let inv = accounting::Inventory::for_torch(oldest).unwrap();
        let analysis = torchcts_core::analyze(MANIFEST, &torchcts_core::AnalysisInput::default());
        let facts = torchcts_core::accounting_view::facts(analysis.model.manifest.as_ref().unwrap().as_dict().unwrap());
        let summary = torchcts_core::accounting_view::summarize(inv, &facts, None);
        torchcts_core::accounting_view::runnable_up_to(&summary, 2)
    };
    assert_eq!(status["run"], expected_run, "counts from the {oldest} inventory");
    let line = MANIFEST.lines().position(|l| l.contains("semantic_level")).unwrap();
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 6}}),
    );
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(markdown.contains(&format!("Counts for torchcts 0.4.1 with torch {oldest}.")), "{markdown}");
    // In range: no warning.
    let warnings: Vec<Value> = client
        .drain_for(std::time::Duration::from_millis(300))
        .into_iter()
        .filter(|m| m["method"] == "window/showMessage")
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 25, item 1: a `.venv` with torchcts 0.4.0 selects 0.4.0's inventory (another
/// suite), named in the status and in hovers with counts; no warning.
#[test]
fn a_workspace_venv_with_torchcts_040_selects_its_inventory() {
    let dir = workspace_with("cts040", "2.12.1", "0.4.0");
    let (mut client, uri) = start(&dir);
    let status = status(&mut client);
    assert_eq!(status["countsFor"], "torchcts 0.4.0 with torch 2.12.1", "{status}");
    let run_with = |inv: &accounting::Inventory| {
        let analysis = torchcts_core::analyze(MANIFEST, &torchcts_core::AnalysisInput::default());
        let facts = torchcts_core::accounting_view::facts(analysis.model.manifest.as_ref().unwrap().as_dict().unwrap());
        let summary = torchcts_core::accounting_view::summarize(inv, &facts, None);
        torchcts_core::accounting_view::runnable_up_to(&summary, 2)
    };
    let inv040 = accounting::Inventory::for_release("0.4.0", "2.12.1").unwrap();
    assert_eq!(inv040.meta.torchcts_version, "0.4.0");
    assert_eq!(status["run"], run_with(inv040), "counts from 0.4.0's inventory");
    assert_ne!(
        run_with(inv040),
        run_with(accounting::Inventory::for_torch("2.12.1").unwrap()),
        "this manifest counts differently with 0.4.1's suite"
    );
    let line = MANIFEST.lines().position(|l| l.contains("semantic_level")).unwrap();
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 6}}),
    );
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(markdown.contains("Counts for torchcts 0.4.0 with torch 2.12.1."), "{markdown}");
    let warnings: Vec<Value> = client
        .drain_for(std::time::Duration::from_millis(300))
        .into_iter()
        .filter(|m| m["method"] == "window/showMessage")
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_torch_outside_the_range_is_said_once_and_the_newest_is_used() {
    let dir = workspace("old", "2.6.0");
    let (mut client, _uri) = start(&dir);
    let newest = accounting::newest_torch_release();
    let status = status(&mut client);
    assert_eq!(status["countsFor"], format!("torchcts 0.4.1 with torch {newest}"));
    let warning = client.wait_for(|m| m["method"] == "window/showMessage");
    let text = warning["params"]["message"].as_str().unwrap();
    assert_eq!(text, format!("torchcts: counts for torch {newest}, not your 2.6.0 (see the log)"));
    // Logged before it was shown: in the backlog `wait_for` kept.
    let logged = client.drain_for(std::time::Duration::from_millis(200)).iter().any(|m| {
        m["method"] == "window/logMessage"
            && m["params"]["message"].as_str().is_some_and(|t| t.contains("torch 2.6.0 is outside the range"))
    });
    assert!(logged, "the note in the log");
    // A configuration change that reloads the inventory does not repeat it.
    client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"torchcts": {"python": dir.join(".venv/bin/python")}}}),
    );
    let more: Vec<Value> = client
        .drain_for(std::time::Duration::from_millis(1500))
        .into_iter()
        .filter(|m| m["method"] == "window/showMessage")
        .collect();
    assert!(more.is_empty(), "said twice: {more:?}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 25, item 3 in the editor: where the hover lists the known backend crashes, it also
/// lists the ledger entries past their review date (all 13 of torchcts 0.4.1's mps entries
/// are due by 2026-10-31, so any later day lists 13).
#[test]
fn the_hover_on_a_ledger_device_lists_the_expired_entries() {
    let dir = workspace("ledger", "2.12.1");
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/parity/skips/cases/mps_excerpt_l4/manifest.py"),
    )
    .unwrap();
    std::fs::write(dir.join("manifest.py"), &text).unwrap();
    let (mut client, uri) = start_with(&dir, &text);
    status(&mut client);
    let line = text.lines().position(|l| l.contains("semantic_level")).unwrap();
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 6}});
    let mut markdown = String::new();
    for _ in 0..100 {
        let hover = client.request("textDocument/hover", at.clone());
        markdown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
        if markdown.contains("known backend crashes") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(markdown.contains("**13 known-segfault ledger entries have expired**"), "{markdown}");
    assert!(
        markdown.contains(
            "known segfault mps-grid-sampler-2d-cpu-fallback-default-pytorch-2-12 review_after=2026-09-30 has expired"
        ),
        "{markdown}"
    );
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 25, item 5: the server checks regexes with the `re` of the workspace venv's Python
/// (3.10 here, from its `pyvenv.cfg`: no atomic groups) and says which in its log.
#[test]
fn a_workspace_venv_on_python_310_gets_its_regex_answers() {
    let dir = workspace("py310", "2.12.1");
    std::fs::write(dir.join(".venv/pyvenv.cfg"), "home = /usr/bin\nversion = 3.10.13\n").unwrap();
    let text = MANIFEST.replace("{torch.float32: True}", "{torch.float32: True, torch.float16: \"^(?>add|mul)$\"}");
    let (mut client, _uri) = start_with(&dir, &text);
    let said = client.wait_for(|m| {
        m["method"] == "window/logMessage"
            && m["params"]["message"].as_str().is_some_and(|t| t.contains("regexes checked as CPython"))
    });
    let said = said["params"]["message"].as_str().unwrap().to_string();
    assert!(said.contains("regexes checked as CPython 3.10's re (the Python of "), "{said}");
    let refused = "supported_dtypes[torch.float16] regex is invalid: unknown extension ?> at position 2";
    client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["diagnostics"]
                .as_array()
                .is_some_and(|ds| ds.iter().any(|d| d["message"].as_str() == Some(refused)))
    });
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 25, item 3 in the editor: a project `known_segfaults.json` that torchcts refuses is
/// an error on that file, with torchcts' message. Written after the server started, it is
/// found through `workspace/didChangeWatchedFiles`; opened in the editor, its own text is
/// checked (here one torchcts reads well: no error).
#[test]
fn a_refused_project_ledger_is_an_error_on_its_file() {
    let dir = workspace("project-ledger", "2.12.1");
    let (mut client, _uri) = start(&dir);
    status(&mut client);
    let ledger = dir.join("known_segfaults.json");
    std::fs::write(&ledger, "{\"version\": 1, \"known_segfaults\": [}\n").unwrap();
    let ledger_uri = file_uri(&ledger);
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": ledger_uri, "type": 1}]}));
    let published = client
        .wait_for(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == ledger_uri.as_str());
    let diagnostic = &published["params"]["diagnostics"][0];
    let message = diagnostic["message"].as_str().unwrap();
    assert!(message.starts_with("Invalid known segfault ledger: "), "{message}");
    assert!(
        message.ends_with("known_segfaults.json: malformed JSON: Expecting value: line 1 column 36 (char 35)"),
        "{message}"
    );
    assert_eq!(diagnostic["range"]["start"], json!({"line": 0, "character": 35}));
    assert_eq!(diagnostic["severity"], 1);
    // The editor's text of the file is what counts while it is open.
    client.open(&ledger_uri, "{\"version\": 2, \"known_segfaults\": []}\n", 1);
    let published = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["version"] == 1
            && m["params"]["uri"] == ledger_uri.as_str()
    });
    let message = published["params"]["diagnostics"][0]["message"].as_str().unwrap();
    assert!(message.ends_with("known_segfaults.json: version must be 1"), "{message}");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": ledger_uri, "version": 2},
               "contentChanges": [{"text": "{\"version\": 1, \"known_segfaults\": []}\n"}]}),
    );
    let published = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["version"] == 2
            && m["params"]["uri"] == ledger_uri.as_str()
    });
    assert_eq!(published["params"]["diagnostics"], json!([]));
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 25, item 4 in the editor: once the workspace's torchcts venv is found, `import
/// orch` of a module in none of its folders is the load error the real check-manifest
/// reports (`No module named 'orch'`).
#[test]
fn a_module_the_venv_cannot_import_is_the_load_error() {
    let dir = workspace("importable", "2.12.1");
    std::fs::write(dir.join(".venv/pyvenv.cfg"), "home = /usr/bin\ninclude-system-site-packages = false\n").unwrap();
    for package in ["torch", "torchcts"] {
        std::fs::create_dir_all(dir.join(".venv/lib/python3.11/site-packages").join(package)).unwrap();
    }
    let text = format!("import orch\n{MANIFEST}");
    std::fs::write(dir.join("manifest.py"), &text).unwrap();
    let (mut client, uri) = start_with(&dir, &text);
    let published = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri.as_str()
            && m["params"]["diagnostics"].to_string().contains("No module named 'orch'")
    });
    assert_eq!(published["params"]["diagnostics"][0]["range"]["start"]["line"], 0, "{published}");
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}
