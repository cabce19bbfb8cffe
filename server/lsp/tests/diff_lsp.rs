//! "vs HEAD" in the editor, over stdio: a manifest in a temporary git repository, edited
//! against its committed version, gets a code lens on the changed entry with the same count
//! as `torchcts-lsp diff --against HEAD`, a hover listing the groups, and an information
//! diagnostic on the switched-off dtype; after the change is committed (HEAD moves) and the
//! file saved, they are gone.

mod support;

use serde_json::{json, Value};
use std::process::Command;
use support::lsp_client::{file_uri, LspClient};
use support::{git, TempDir};

const MANIFEST: &str = r#"import torch

manifest = {
    "manifest_version": 1,
    "device_name": "cpu",
    "supported_dtypes": {
        torch.float32: True,
        torch.float16: True,
    },
    "semantic_level": 3,
    "capabilities": {"inference": True, "training": True},
    "skip_ops": [],
}
"#;

fn review_lenses(client: &mut LspClient, uri: &str) -> Vec<Value> {
    let lenses = client.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    // null before the inventory is decoded.
    lenses
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|l| l["command"]["title"].as_str().unwrap_or("").starts_with("vs HEAD"))
        .cloned()
        .collect()
}

fn has_note(diags: &Value) -> bool {
    diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .any(|d| d["message"].as_str().unwrap().contains("switched off since HEAD"))
}

#[test]
fn lens_hover_and_note_against_head_and_gone_once_committed() {
    let dir = TempDir(std::env::temp_dir().join(format!("torchcts-diff-lsp-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    let path = dir.0.join("manifest.py");
    std::fs::write(&path, MANIFEST).unwrap();
    git(&dir.0, &["init", "-q"]);
    git(&dir.0, &["add", "manifest.py"]);
    git(&dir.0, &["commit", "-q", "-m", "manifest"]);
    let edited = MANIFEST.replace("torch.float16: True", "torch.float16: False");
    std::fs::write(&path, &edited).unwrap();

    // What the CLI says about the same change.
    let cli = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .current_dir(&dir.0)
        .args(["diff", "--against", "HEAD", "manifest.py", "--format", "json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&cli.stdout).expect("diff json");
    let stopped = report["stopped"].as_u64().unwrap();
    assert!(stopped > 0);

    let uri = file_uri(&path);
    let mut client = LspClient::spawn();
    client.initialize(json!({}));
    client.open(&uri, &edited, 1);
    // Once the inventory is decoded, the diagnostics carry the note.
    let diags = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str() && has_note(&m["params"])
    })["params"]
        .clone();
    let note = diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("switched off since HEAD"))
        .unwrap()
        .clone();
    let line = edited.lines().position(|l| l.contains("torch.float16: False")).unwrap() as u64;
    assert_eq!(note["severity"], 3, "information: {note}");
    assert_eq!(note["range"]["start"]["line"], line);
    assert!(
        note["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("`torch.float16` is switched off since HEAD: {stopped} tests stop running")),
        "{note}"
    );

    let lenses = review_lenses(&mut client, &uri);
    assert_eq!(lenses.len(), 1, "{lenses:#?}");
    assert_eq!(lenses[0]["command"]["title"], format!("vs HEAD: -{stopped} tests"));
    assert_eq!(lenses[0]["range"]["start"]["line"], line);

    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 12}}),
    );
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("**vs HEAD**") && text.contains("tests stop running, float16 entry"), "{text}");

    // An edit back to the committed value: no lens (the committed accounting is reused).
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": MANIFEST}]}),
    );
    let diags = client.diagnostics(&uri, Some(2));
    assert!(!has_note(&diags), "{diags:#}");
    assert!(review_lenses(&mut client, &uri).is_empty());

    // Commit the edited version, save: HEAD moved, the review is against the new commit.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": edited}]}),
    );
    let diags = client.diagnostics(&uri, Some(3));
    assert!(has_note(&diags), "still against the old HEAD: {diags:#}");
    git(&dir.0, &["commit", "-q", "-am", "float16 off"]);
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    let diags = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri.as_str()
            && m["params"]["version"] == 3
            && !has_note(&m["params"])
    });
    assert_eq!(diags["params"]["version"], 3);
    assert!(review_lenses(&mut client, &uri).is_empty());
    client.shutdown();
}

#[test]
fn no_lens_outside_a_repository() {
    let dir = TempDir(std::env::temp_dir().join(format!("torchcts-diff-lsp-nogit-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    let path = dir.0.join("manifest.py");
    std::fs::write(&path, MANIFEST).unwrap();
    let uri = file_uri(&path);
    let mut client = LspClient::spawn();
    client.initialize(json!({}));
    client.open(&uri, &MANIFEST.replace("torch.float16: True", "torch.float16: False"), 1);
    let diags = client.diagnostics(&uri, Some(1));
    assert!(!has_note(&diags));
    // Once the accounting is there, the run lens shows; still no review lens.
    let lenses = loop {
        let lenses = client.request("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
        if lenses.as_array().is_some_and(|l| !l.is_empty()) {
            break lenses;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let titles: Vec<&str> =
        lenses.as_array().unwrap().iter().map(|l| l["command"]["title"].as_str().unwrap()).collect();
    assert!(titles.iter().any(|t| t.starts_with("▶ Run level")), "{titles:?}");
    assert!(titles.iter().all(|t| !t.starts_with("vs HEAD")), "{titles:?}");
    client.shutdown();
}
