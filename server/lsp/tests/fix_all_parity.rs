//! The editor's `source.fixAll.torchcts` and `check --fix` give the same text (issue 30,
//! item 3): both run the core's one fix-all engine, and this holds them to it on every
//! manifest of the parity corpora (check, diff, skips), the syntax corpus (where CPython's
//! missing comma or colon is repaired) and the README's example.
//!
//! Each text is written to its own folder in a temporary directory; the server (over
//! stdio, as an editor) is asked for `source.fixAll` on the text as it is, its one edit is
//! applied, then `check --fix` rewrites the folder's files in one run, and the two texts
//! are compared file by file.

mod support;

use serde_json::{json, Value};
use std::io::Read;
use std::process::Command;
use support::lsp_client::{file_uri, LspClient};
use support::repo_root as repo;

/// Every manifest the corpora hold: (name, text).
fn corpus() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for corpus in ["check", "diff", "skips"] {
        let cases = repo().join("tests/parity").join(corpus).join("cases");
        let mut names: Vec<_> = std::fs::read_dir(&cases).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        for case in names {
            let manifest = case.join("manifest.py");
            if let Ok(text) = std::fs::read_to_string(&manifest) {
                out.push((format!("{corpus}-{}", case.file_name().unwrap().to_string_lossy()), text));
            }
        }
    }
    let mut gz = String::new();
    let file = std::fs::File::open(repo().join("tests/parity/syntax/cases.json.gz")).unwrap();
    flate2::read::GzDecoder::new(file).read_to_string(&mut gz).unwrap();
    let extra: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("tests/parity/syntax/extra_cases.json")).unwrap())
            .unwrap();
    let syntax: Value = serde_json::from_str(&gz).unwrap();
    for (i, case) in syntax["cases"].as_array().unwrap().iter().chain(extra["cases"].as_array().unwrap()).enumerate() {
        out.push((format!("syntax-{i:04}"), case["source"].as_str().unwrap().to_string()));
    }
    out.push(("example".into(), std::fs::read_to_string(repo().join("examples/manifest.py")).unwrap()));
    out
}

/// The byte offset of an LSP position (UTF-8 encoding negotiated).
fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let character = position["character"].as_u64().unwrap() as usize;
    let mut start = 0;
    for _ in 0..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    (start + character).min(text.len())
}

/// The text after the editor's fix-all on `text` at `uri`.
fn editor_fix_all(client: &mut LspClient, uri: &str, text: &str) -> String {
    client.open(uri, text, 1);
    let zero = json!({"line": 0, "character": 0});
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": zero, "end": zero},
               "context": {"diagnostics": [], "only": ["source.fixAll"]}}),
    );
    client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    let Some(action) = actions.as_array().and_then(|a| a.first()) else { return text.to_string() };
    let edits = action["edit"]["changes"][uri].as_array().expect("a fix-all edits its document");
    assert_eq!(edits.len(), 1, "{action:#}");
    let range = &edits[0]["range"];
    let (start, end) = (offset(text, &range["start"]), offset(text, &range["end"]));
    format!("{}{}{}", &text[..start], edits[0]["newText"].as_str().unwrap(), &text[end..])
}

#[test]
fn the_editors_fix_all_equals_check_fix_on_every_corpus_manifest() {
    let cases = corpus();
    assert!(cases.len() > 1000, "corpus too small: {}", cases.len());
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-fix-all-parity-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut client = LspClient::spawn();
    let init = client.initialize(json!({"general": {"positionEncodings": ["utf-8"]}}));
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    let mut editor = Vec::new();
    for (name, text) in &cases {
        let path = dir.join(name).join("manifest.py");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        editor.push(editor_fix_all(&mut client, &file_uri(&path), text));
    }
    client.shutdown();
    let run = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp")).args(["check", "--fix"]).arg(&dir).output().unwrap();
    assert!(run.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&run.stderr));
    let mut differ = Vec::new();
    let mut fixed = 0;
    for ((name, text), from_editor) in cases.iter().zip(&editor) {
        let from_cli = std::fs::read_to_string(dir.join(name).join("manifest.py")).unwrap();
        fixed += usize::from(from_cli != *text);
        if from_cli != *from_editor {
            differ.push(format!("{name}:\n--- check --fix\n{from_cli}\n--- source.fixAll\n{from_editor}"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(differ.is_empty(), "{} of {} differ:\n{}", differ.len(), cases.len(), differ.join("\n"));
    // The comparison saw fixes applied, not only texts left alone.
    assert!(fixed >= 20, "only {fixed} texts were fixed");
}
