//! Black-box tests: spawn the built server and speak LSP over stdio as an editor does.

mod support;

use serde_json::{json, Value};
use std::time::Duration;
use support::lsp_client::{vscode_capabilities, with_capabilities, LspClient};

const VALID: &str = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"capabilities\": {\"inference\": True},\n}\n";

fn messages(diags: &Value) -> Vec<String> {
    diags["diagnostics"].as_array().unwrap().iter().map(|d| d["message"].as_str().unwrap().to_string()).collect()
}

fn find<'a>(diags: &'a Value, needle: &str) -> &'a Value {
    diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains(needle))
        .unwrap_or_else(|| panic!("no diagnostic containing {needle:?} in {diags:#}"))
}

/// The code action titled `title` the server offers for `diag`.
fn code_action(client: &mut LspClient, uri: &str, diag: &Value, title: &str) -> Value {
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": diag["range"], "context": {"diagnostics": [diag]}}),
    );
    let found = actions.as_array().unwrap().iter().find(|a| a["title"] == title).cloned();
    found.unwrap_or_else(|| panic!("no action {title:?} in {actions:#}"))
}

#[test]
fn open_publishes_versioned_diagnostics_and_close_clears_them() {
    let mut client = LspClient::spawn();
    let init = client.initialize(vscode_capabilities());
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(init["capabilities"]["textDocumentSync"]["change"], 2, "incremental sync");
    let uri = "file:///tmp/torchcts-lsp-test/open/manifest.py";
    let text = VALID.replace("\"inference\": True", "\"generator\": True");
    client.open(uri, &text, 7);
    let diags = client.diagnostics(uri, Some(7));
    let d = find(&diags, "Unknown capabilities key 'generator'");
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "torchcts");
    assert_eq!(d["range"], json!({"start": {"line": 4, "character": 21}, "end": {"line": 4, "character": 32}}));
    client.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    // (A second publish of version 7 may come first, once the inventory is loaded.)
    client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"] == json!([])
    });
    client.backlog.clear();
    let after = client.drain_for(Duration::from_millis(300));
    assert!(
        after.iter().all(|m| m["method"] != "textDocument/publishDiagnostics"),
        "diagnostics published after close: {after:#?}"
    );
    client.shutdown();
}

#[test]
fn a_burst_of_edits_ends_with_diagnostics_for_the_last_version_only() {
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    let uri = "file:///tmp/torchcts-lsp-test/burst/manifest.py";
    client.open(uri, VALID, 1);
    client.diagnostics(uri, Some(1));
    // Type `, "zz": 1` one character at a time after `True` on line 4.
    let insert = ", \"zz\": 1";
    let base_col = VALID.lines().nth(4).unwrap().find("True").unwrap() + 4;
    for (i, ch) in insert.chars().enumerate() {
        let col = base_col + i;
        client.notify(
            "textDocument/didChange",
            json!({
                "textDocument": {"uri": uri, "version": 2 + i},
                "contentChanges": [{"range": {"start": {"line": 4, "character": col}, "end": {"line": 4, "character": col}}, "text": ch.to_string()}]
            }),
        );
    }
    let last = 1 + insert.chars().count() as i64;
    // Wait for the last version, then collect everything that arrived, in arrival order.
    let final_diags = client.diagnostics(uri, Some(last));
    assert!(messages(&final_diags).iter().any(|m| m == "Unknown capabilities key 'zz'"), "{final_diags:#}");
    let earlier: Vec<Value> = std::mem::take(&mut client.backlog);
    let later = client.drain_for(Duration::from_millis(500));
    let versions = |msgs: &[Value]| -> Vec<i64> {
        msgs.iter()
            .filter(|m| m["method"] == "textDocument/publishDiagnostics")
            .map(|m| m["params"]["version"].as_i64().unwrap())
            .collect()
    };
    let before = versions(&earlier);
    // One version may be published twice in a row (the emulation's findings, then again once
    // CPython's `compile()` answered, `server/cpython.rs`), but never an older after a newer.
    assert!(before.windows(2).all(|w| w[0] <= w[1]), "versions published out of order: {before:?}");
    assert!(before.iter().all(|&v| v < last));
    // Only the last version may be published again (e.g. once the inventory is loaded).
    assert!(
        versions(&later).iter().all(|&v| v == last),
        "older diagnostics published after the last version: {:?}",
        versions(&later)
    );
    client.shutdown();
}

#[test]
fn utf16_and_utf8_columns_after_non_ascii_text() {
    // '😀' is 2 UTF-16 code units and 4 UTF-8 bytes; 'é' is 1 and 2.
    let text = "manifest = {\"manifest_version\": 1, \"device_name\": \"😀é\", \"capabilities\": {\"x\": True}}\n";
    let key_char_utf16 =
        "manifest = {\"manifest_version\": 1, \"device_name\": \"😀é\", \"capabilities\": {".encode_utf16().count();
    let key_byte = text.find("\"x\"").unwrap();

    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    let uri = "file:///tmp/torchcts-lsp-test/utf16/manifest.py";
    client.open(uri, text, 1);
    let d = client.diagnostics(uri, Some(1));
    assert_eq!(find(&d, "'x'")["range"]["start"], json!({"line": 0, "character": key_char_utf16}));
    client.shutdown();

    let mut client = LspClient::spawn();
    let init = client.initialize(with_capabilities(
        vscode_capabilities(),
        json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}),
    ));
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-8");
    client.open(uri, text, 1);
    let d = client.diagnostics(uri, Some(1));
    assert_eq!(find(&d, "'x'")["range"]["start"], json!({"line": 0, "character": key_byte}));
    // An incremental edit in UTF-8 columns right after the emoji lands where intended.
    let after_emoji = text.find('é').unwrap();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 0, "character": after_emoji}, "end": {"line": 0, "character": after_emoji + 2}}, "text": "e"}]}),
    );
    let d = client.diagnostics(uri, Some(2));
    assert_eq!(find(&d, "'x'")["range"]["start"], json!({"line": 0, "character": key_byte - 1}));
    client.shutdown();
}

#[test]
fn crlf_files_count_lines_like_lsp() {
    let text = VALID.replace('\n', "\r\n").replace("\"inference\": True", "\"inference\": 1");
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    let uri = "file:///tmp/torchcts-lsp-test/crlf/manifest.py";
    client.open(uri, &text, 1);
    let d = client.diagnostics(uri, Some(1));
    let diag = find(&d, "'capabilities.inference' must be a boolean");
    assert_eq!(diag["range"], json!({"start": {"line": 4, "character": 34}, "end": {"line": 4, "character": 35}}));
    // Replace `1` by `True` with an incremental edit; the error goes away.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 4, "character": 34}, "end": {"line": 4, "character": 35}}, "text": "True"}]}),
    );
    let d = client.diagnostics(uri, Some(2));
    assert!(messages(&d).iter().all(|m| !m.contains("must be a boolean")), "{d:#}");
    // U+2028 is not a line break for LSP, although ropey's default would count it.
    let text = "# \u{2028} comment\nmanifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"capabilities\": {\"q\": True}}\n";
    client.open("file:///tmp/torchcts-lsp-test/crlf/u2028/manifest.py", text, 1);
    let d = client.diagnostics("file:///tmp/torchcts-lsp-test/crlf/u2028/manifest.py", Some(1));
    assert_eq!(find(&d, "'q'")["range"]["start"]["line"], 1);
    client.shutdown();
}

#[test]
fn bad_input_never_kills_the_server() {
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    // A change for a document that was never opened, an out-of-range edit, garbage text,
    // deep nesting and a pathological regex.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": "file:///nope.py", "version": 3}, "contentChanges": [{"text": "x"}]}),
    );
    let uri = "file:///tmp/torchcts-lsp-test/bad/manifest.py";
    client.open(uri, "manifest = {", 1);
    client.diagnostics(uri, Some(1));
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": {"line": 99, "character": 5}, "end": {"line": 120, "character": 0}}, "text": "}"}]}),
    );
    client.diagnostics(uri, Some(2));
    let garbage: String = (0..5000).map(|i| char::from_u32(32 + (i * 7919) % 5000).unwrap_or('x')).collect();
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": garbage}]}),
    );
    client.diagnostics(uri, Some(3));
    let deep = format!("manifest = {}{}\n", "[".repeat(20000), "]".repeat(20000));
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": deep}]}),
    );
    client.diagnostics(uri, Some(4));
    let regex = "import torch\nmanifest = {\"manifest_version\": 1, \"device_name\": \"cpu\", \"capabilities\": {}, \"supported_dtypes\": {torch.float32: \"(a*)*b\" * 50}}\n";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 5}, "contentChanges": [{"text": regex}]}),
    );
    client.diagnostics(uri, Some(5));
    // Catastrophic backtracking on operator names: the accounting gives the pattern up
    // instead of stalling, and hover still answers.
    let catastrophic = regex.replace("\"(a*)*b\" * 50", "\"(.*.*)*=x\"");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 6}, "contentChanges": [{"text": catastrophic}]}),
    );
    client.diagnostics(uri, Some(6));
    client
        .request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}}));
    client.shutdown();
}

#[test]
fn hover_and_a_quick_fix_applied_through_the_returned_edit() {
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    let uri = "file:///tmp/torchcts-lsp-test/fix/manifest.py";
    let mut text = VALID.replace("\"inference\": True", "\"generator\": True");
    client.open(uri, &text, 1);
    let d = client.diagnostics(uri, Some(1));
    let diag = find(&d, "Unknown capabilities key 'generator'").clone();

    let hover = client
        .request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 25}}));
    assert!(hover["contents"]["value"].as_str().unwrap().contains("capabilities.generator"), "{hover:#}");

    let fix = code_action(&mut client, uri, &diag, "Replace with 'device_generator'");
    assert_eq!(fix["kind"], "quickfix");
    assert!(fix["diagnostics"][0]["message"].as_str().unwrap().contains("generator"));
    // Apply the returned edit as an editor would, and send it as an incremental change.
    let edits = fix["edit"]["changes"][uri].as_array().unwrap().clone();
    assert_eq!(edits.len(), 1);
    let edit = &edits[0];
    let line = edit["range"]["start"]["line"].as_u64().unwrap() as usize;
    let (start, end) = (
        edit["range"]["start"]["character"].as_u64().unwrap() as usize,
        edit["range"]["end"]["character"].as_u64().unwrap() as usize,
    );
    let line_offset: usize = text.lines().take(line).map(|l| l.len() + 1).sum();
    text.replace_range(line_offset + start..line_offset + end, edit["newText"].as_str().unwrap());
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": edit["range"], "text": edit["newText"]}]}),
    );
    let d = client.diagnostics(uri, Some(2));
    assert!(messages(&d).iter().all(|m| !m.contains("generator")), "fix did not clear the diagnostic: {d:#}");
    assert!(text.contains("\"device_generator\": True"));
    client.shutdown();
}

#[test]
fn a_forgotten_comma_gets_cpythons_message_and_a_fix_that_clears_it() {
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    let uri = "file:///tmp/torchcts-lsp-test/comma/manifest.py";
    let text = VALID.replacen(",\n", "\n", 1);
    client.open(uri, &text, 1);
    let d = client.diagnostics(uri, Some(1));
    let diag = find(&d, "Perhaps you forgot a comma?").clone();
    assert!(diag["message"].as_str().unwrap().contains("(manifest.py, line"), "{diag:#}");
    let fix = code_action(&mut client, uri, &diag, "Insert the missing ','");
    assert_eq!(fix["isPreferred"], true);
    let edit = fix["edit"]["changes"][uri][0].clone();
    assert_eq!(edit["newText"], ",");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": edit["range"], "text": ","}]}),
    );
    let d = client.diagnostics(uri, Some(2));
    assert!(messages(&d).iter().all(|m| !m.contains("Failed to parse")), "the fix did not repair the file: {d:#}");
    client.shutdown();
}

/// Whether any message published diagnostics for `uri`.
fn published_for(messages: &[Value], uri: &str) -> bool {
    messages.iter().any(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
}

#[test]
fn a_python_file_that_is_no_manifest_gets_nothing() {
    // Helix and a plain `vim.lsp.enable` send every Python buffer to the server.
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    let other = "file:///tmp/torchcts-lsp-test/plain/setup.py";
    let broken = "manifest = {\"generator\": 1\nimport os\n";
    client.open(other, broken, 1);
    let manifest = "file:///tmp/torchcts-lsp-test/plain/manifest.py";
    client.open(manifest, broken, 1);
    // The server handles notifications in order: the manifest's diagnostics come after
    // anything it would have published for setup.py.
    client.diagnostics(manifest, Some(1));
    let later = client.drain_for(Duration::from_millis(500));
    let mut seen = client.backlog.clone();
    seen.extend(later);
    assert!(!published_for(&seen, other), "diagnostics for a non-manifest: {seen:#?}");
    let at = json!({"textDocument": {"uri": other}, "position": {"line": 0, "character": 3}});
    assert_eq!(client.request("textDocument/hover", at.clone()), Value::Null);
    assert_eq!(client.request("textDocument/codeLens", json!({"textDocument": {"uri": other}})), Value::Null);
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}});
    let hints = client.request("textDocument/inlayHint", json!({"textDocument": {"uri": other}, "range": range}));
    assert_eq!(hints, Value::Null);
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": other}, "range": range, "context": {"diagnostics": []}}),
    );
    assert_eq!(actions, Value::Null);
    // An edit does not wake it up either.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": other, "version": 2}, "contentChanges": [{"text": "manifest = {"}]}),
    );
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": manifest, "version": 2}, "contentChanges": [{"text": VALID}]}),
    );
    client.diagnostics(manifest, Some(2));
    assert!(!published_for(&client.backlog, other), "{:#?}", client.backlog);
    client.shutdown();
}

#[test]
fn every_workspace_folder_counts_and_folders_can_change() {
    let root = std::env::temp_dir().join(format!("torchcts-lsp-multiroot-{}", std::process::id()));
    let folder = |name: &str| root.join(name);
    let uri_of = |name: &str, file: &str| support::lsp_client::file_uri(&folder(name).join(file));
    let mut client = LspClient::spawn();
    let init = client.request(
        "initialize",
        json!({"processId": null, "capabilities": vscode_capabilities(),
               "rootUri": support::lsp_client::file_uri(&folder("a")),
               "workspaceFolders": [
                   {"uri": support::lsp_client::file_uri(&folder("a")), "name": "a"},
                   {"uri": support::lsp_client::file_uri(&folder("b")), "name": "b"}],
               "initializationOptions": {"torchcts": {"manifests": ["devices/*.py"]}}}),
    );
    client.notify("initialized", json!({}));
    assert_eq!(init["capabilities"]["workspace"]["workspaceFolders"]["supported"], true);
    assert_eq!(init["capabilities"]["workspace"]["workspaceFolders"]["changeNotifications"], true);
    let text = VALID.replace("\"inference\": True", "\"generator\": True");
    // A glob relative to each folder: the second folder's files are manifests too.
    let (a, b, c) = (uri_of("a", "devices/cuda.py"), uri_of("b", "devices/npu.py"), uri_of("c", "devices/xpu.py"));
    let not_one = uri_of("b", "tools/npu.py");
    for uri in [&a, &b, &c, &not_one] {
        client.open(uri, &text, 1);
    }
    for uri in [&a, &b] {
        let d = client.diagnostics(uri, Some(1));
        find(&d, "Unknown capabilities key 'generator'");
    }
    // c is in no workspace folder (yet): silent, as is b/tools.
    let marker = uri_of("a", "manifest.py");
    client.open(&marker, &text, 1);
    client.diagnostics(&marker, Some(1));
    assert!(!published_for(&client.backlog, &c) && !published_for(&client.backlog, &not_one));
    client.backlog.clear();
    // Folder c added, a removed: c's document is analysed, a's diagnostics are cleared.
    client.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [{"uri": support::lsp_client::file_uri(&folder("c")), "name": "c"}],
                         "removed": [{"uri": support::lsp_client::file_uri(&folder("a")), "name": "a"}]}}),
    );
    let d = client.diagnostics(&c, Some(1));
    find(&d, "Unknown capabilities key 'generator'");
    // An analysis of `a` from before the change (the inventory loading) may still land first.
    client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == a.as_str()
            && m["params"]["diagnostics"] == json!([])
    });
    // The manifest named manifest.py stays a manifest wherever it is.
    let hover = client.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": marker}, "position": {"line": 4, "character": 25}}),
    );
    assert!(hover["contents"]["value"].as_str().unwrap().contains("capabilities.generator"), "{hover:#}");
    client.shutdown();
}

#[test]
fn code_actions_honour_only_and_fix_all_applies_the_safe_fixes() {
    let mut client = LspClient::spawn();
    let init = client.initialize(vscode_capabilities());
    let kinds = init["capabilities"]["codeActionProvider"]["codeActionKinds"].clone();
    assert_eq!(kinds, json!(["quickfix", "source.torchcts.run", "source.fixAll.torchcts"]));
    let uri = "file:///tmp/torchcts-lsp-test/fix-all/manifest.py";
    // A forgotten comma, a renamed capability, a string dtype key (all safe) and a
    // misspelt capability (several candidates: not safe).
    let text = VALID
        .replacen(",\n", "\n", 1)
        .replace("\"inference\": True", "\"generator\": True, \"inferenc\": True")
        .replace("\n}", "\n    \"supported_dtypes\": {\"float32\": \"^add$\"},\n}");
    client.open(uri, &text, 1);
    let d = client.diagnostics(uri, Some(1));
    let everything = json!({"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}});
    let ask = |client: &mut LspClient, only: Value| {
        let mut context = json!({"diagnostics": d["diagnostics"]});
        if !only.is_null() {
            context["only"] = only;
        }
        client.request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": uri}, "range": everything, "context": context}),
        )
    };
    let kinds_of = |actions: &Value| -> Vec<String> {
        let mut k: Vec<String> =
            actions.as_array().unwrap().iter().map(|a| a["kind"].as_str().unwrap().to_string()).collect();
        k.dedup();
        k
    };
    assert_eq!(kinds_of(&ask(&mut client, json!(["quickfix"]))), ["quickfix"]);
    assert_eq!(kinds_of(&ask(&mut client, json!(["source.torchcts.run"]))), ["source.torchcts.run"]);
    assert_eq!(kinds_of(&ask(&mut client, json!(["refactor"]))), Vec::<String>::new());
    let all = ask(&mut client, Value::Null);
    let all_kinds = kinds_of(&all);
    for kind in ["quickfix", "source.fixAll.torchcts", "source.torchcts.run"] {
        assert!(all_kinds.iter().any(|k| k == kind), "{kind} missing: {all_kinds:?}");
    }
    // What `editor.codeActionsOnSave: {"source.fixAll": "explicit"}` asks for.
    let fix_all = ask(&mut client, json!(["source.fixAll"]));
    assert_eq!(kinds_of(&fix_all), ["source.fixAll.torchcts"], "{fix_all:#}");
    let edit = fix_all[0]["edit"]["changes"][uri][0].clone();
    assert_eq!(fix_all[0]["edit"]["changes"][uri].as_array().unwrap().len(), 1);
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": edit["range"], "text": edit["newText"]}]}),
    );
    let d = client.diagnostics(uri, Some(2));
    let after = messages(&d);
    for gone in ["forgot a comma", "'generator'", "test selection ignores it"] {
        assert!(after.iter().all(|m| !m.contains(gone)), "{gone:?} left after fix-all: {after:#?}");
    }
    // The unsafe one is still there, for the user to pick a candidate.
    assert!(after.iter().any(|m| m.contains("'inferenc'")), "{after:#?}");
    // Nothing safe is left: no fix-all action.
    let again = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": everything, "context": {"diagnostics": [], "only": ["source.fixAll.torchcts"]}}),
    );
    assert_eq!(again, json!([]));
    client.shutdown();
}

#[test]
fn log_level_and_log_file_settings() {
    let log = std::env::temp_dir().join(format!("torchcts-lsp-log-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let mut client = LspClient::spawn();
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": vscode_capabilities(),
               "initializationOptions": {"torchcts": {"logLevel": "debug", "logFile": log.to_str().unwrap()}}}),
    );
    client.notify("initialized", json!({}));
    // The debug line comes to the client (window/logMessage, type 4) and into the file.
    client.wait_for(|m| {
        m["method"] == "window/logMessage" && m["params"]["message"].as_str().unwrap().starts_with("workspace folders")
    });
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.contains(" info  torchcts-lsp ") && written.contains(" debug workspace folders: []"), "{written}");
    // At `error`, an info line is written nowhere.
    client.notify("workspace/didChangeConfiguration", json!({"settings": {"torchcts": {"logLevel": "error", "logFile": log.to_str().unwrap(), "onSave": "affected"}}}));
    let uri = "file:///tmp/torchcts-lsp-test/log/manifest.py";
    client.open(uri, "manifest = {", 1);
    client.diagnostics(uri, Some(1));
    client.backlog.retain(|m| m["method"] != "window/logMessage");
    client.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
    let later = client.drain_for(Duration::from_millis(500));
    assert!(later.iter().all(|m| m["method"] != "window/logMessage"), "{later:#?}");
    assert!(!std::fs::read_to_string(&log).unwrap().contains("on-save run skipped"));
    client.shutdown();
    let _ = std::fs::remove_file(&log);
}

/// Issue 24, item 4: our own finding offers "Ignore CODE on this line"; applied, the finding
/// is gone and the comment is not reported unused. check-manifest's findings offer none.
#[test]
fn a_finding_of_ours_can_be_suppressed_from_the_editor() {
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    let uri = "file:///tmp/torchcts-lsp-test/suppress/manifest.py";
    let text = VALID.replace("\n}", "\n    \"supported_dtypes\": {\"float32\": True},\n    \"bogus\": 1,\n}");
    client.open(uri, &text, 1);
    let diags = client.diagnostics(uri, Some(1));
    let ours = find(&diags, "test selection ignores it").clone();
    let title = "Ignore `dtype-key-ignored` on this line (# torchcts-lsp: ignore[dtype-key-ignored])";
    let action = code_action(&mut client, uri, &ours, title);
    let edits = action["edit"]["changes"][uri].as_array().expect("one file's edits").clone();
    assert_eq!(edits.len(), 1, "{action:#}");
    let theirs = find(&diags, "bogus").clone();
    let offered = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": theirs["range"], "context": {"diagnostics": [theirs]}}),
    );
    assert!(
        offered.as_array().unwrap().iter().all(|a| !a["title"].as_str().unwrap_or("").starts_with("Ignore `")),
        "check-manifest's finding offers a suppression: {offered:#}"
    );
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": edits[0]["range"], "text": edits[0]["newText"]}]}),
    );
    let after = messages(&client.diagnostics(uri, Some(2)));
    assert!(after.iter().all(|m| !m.contains("test selection ignores it")), "{after:#?}");
    assert!(after.iter().all(|m| !m.to_lowercase().contains("unused")), "{after:#?}");
    assert!(after.iter().any(|m| m.contains("bogus")), "check-manifest's finding stays: {after:#?}");
}

/// Issue 24, item 5 in the server: the nearest `pyproject.toml`'s `[tool.torchcts-lsp]`
/// silences its `ignore` codes (ours only) and adds its `manifests` globs; the server asks to
/// watch pyproject files and reads them again when one changes.
#[test]
fn the_project_configuration_applies_in_the_editor_and_is_read_again_on_change() {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-pyproject-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("devices")).unwrap();
    let pyproject = dir.join("pyproject.toml");
    let config =
        "[tool.torchcts-lsp]\nignore = [\"dtype-key-ignored\"]\nmanifests = [\"devices/*.py\"]\ndevice = \"mps\"\n";
    std::fs::write(&pyproject, config).unwrap();
    let text = VALID.replace("\n}", "\n    \"supported_dtypes\": {\"float32\": True},\n    \"bogus\": 1,\n}");
    let manifest = dir.join("manifest.py");
    let device = dir.join("devices/cuda.py");
    std::fs::write(&manifest, &text).unwrap();
    std::fs::write(&device, &text).unwrap();

    let mut client = LspClient::spawn();
    client.initialize(with_capabilities(
        vscode_capabilities(),
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}}),
    ));
    let registration = client.wait_for(|m| m["method"] == "client/registerCapability");
    assert_eq!(registration["params"]["registrations"][0]["method"], "workspace/didChangeWatchedFiles");
    let uri = support::lsp_client::file_uri(&manifest);
    client.open(&uri, &text, 1);
    let first = messages(&client.diagnostics(&uri, Some(1)));
    assert!(first.iter().all(|m| !m.contains("test selection ignores it")), "ignored code published: {first:#?}");
    assert!(first.iter().any(|m| m.contains("bogus")), "check-manifest's finding is never silenced: {first:#?}");
    // The configured device is the runs' device (no editor setting says otherwise).
    let start = json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}});
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": start, "context": {"diagnostics": [], "only": ["source.torchcts.run"]}}),
    );
    let titles: Vec<&str> = actions.as_array().unwrap().iter().filter_map(|a| a["title"].as_str()).collect();
    assert!(titles.iter().any(|t| t.starts_with("Run level") && t.ends_with("on mps")), "{titles:?}");
    let device_uri = support::lsp_client::file_uri(&device);
    client.open(&device_uri, &text, 1);
    let by_glob = messages(&client.diagnostics(&device_uri, Some(1)));
    assert!(by_glob.iter().any(|m| m.contains("bogus")), "a `manifests` glob makes devices/cuda.py a manifest");

    std::fs::write(&pyproject, "[tool.torchcts-lsp]\nmanifests = [\"devices/*.py\"]\n").unwrap();
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": support::lsp_client::file_uri(&pyproject), "type": 2}]}),
    );
    let again = client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == uri
            && m["params"]["diagnostics"].to_string().contains("test selection ignores it")
    });
    assert!(again["params"]["diagnostics"].to_string().contains("bogus"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--log-level` and `--log-file` on the command line do what the settings do, for editors
/// that start the server with arguments rather than settings.
#[test]
fn log_level_and_log_file_flags() {
    let log = std::env::temp_dir().join(format!("torchcts-lsp-log-flags-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let mut client =
        LspClient::spawn_with_args(&["--stdio", "--log-level", "debug", "--log-file", log.to_str().unwrap()]);
    client.initialize(vscode_capabilities());
    client.wait_for(|m| {
        m["method"] == "window/logMessage" && m["params"]["message"].as_str().unwrap().starts_with("workspace folders")
    });
    let written = std::fs::read_to_string(&log).unwrap();
    assert!(written.contains(" debug workspace folders: []"), "{written}");
    client.shutdown();
    let _ = std::fs::remove_file(&log);
}

/// A `[tool.torchcts-lsp]` value that cannot be read is an error on the pyproject.toml (at
/// the value), the configuration applies nothing, and the error goes once the file is fixed.
#[test]
fn a_bad_project_configuration_is_a_diagnostic_on_the_pyproject() {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-badpyproject-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let pyproject = dir.join("pyproject.toml");
    std::fs::write(&pyproject, "[project]\nname = \"x\"\n\n[tool.torchcts-lsp]\nlevel = 9\n").unwrap();
    let manifest = dir.join("manifest.py");
    std::fs::write(&manifest, VALID).unwrap();
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    let uri = support::lsp_client::file_uri(&manifest);
    let config_uri = support::lsp_client::file_uri(&pyproject);
    client.open(&uri, VALID, 1);
    let bad = client.wait_for(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == config_uri);
    let d = &bad["params"]["diagnostics"][0];
    assert_eq!(d["severity"], 1, "{bad:#}");
    assert!(d["message"].as_str().unwrap().contains("level"), "{bad:#}");
    assert_eq!(d["range"]["start"]["line"], 4, "on the value's line: {bad:#}");
    assert_eq!(client.diagnostics(&uri, Some(1))["diagnostics"], json!([]), "the manifest itself is valid");
    std::fs::write(&pyproject, "[project]\nname = \"x\"\n\n[tool.torchcts-lsp]\nlevel = 2\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": config_uri, "type": 2}]}));
    client.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == config_uri
            && m["params"]["diagnostics"] == json!([])
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// The project's `on-save` applies where the editor says no `onSave`, and the editor's wins
/// where it does (an untrusted VS Code workspace sends `off`).
#[test]
fn the_projects_on_save_applies_only_where_the_editor_says_none() {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-onsave-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("pyproject.toml"), "[tool.torchcts-lsp]\non-save = \"level\"\n").unwrap();
    // A Python that does not exist: the run starts (its progress is created) and fails.
    let manifest = dir.join("manifest.py");
    std::fs::write(&manifest, VALID).unwrap();
    let uri = support::lsp_client::file_uri(&manifest);
    let saved_with = |options: Value| -> Vec<Value> {
        let mut client = LspClient::spawn();
        client.request(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": vscode_capabilities(), "initializationOptions": options}),
        );
        client.notify("initialized", json!({}));
        client.open(&uri, VALID, 1);
        client.diagnostics(&uri, Some(1));
        client.notify("textDocument/didSave", json!({"textDocument": {"uri": uri}}));
        let seen = client.drain_for(Duration::from_millis(1500));
        client.shutdown();
        seen
    };
    // A run announces itself with a progress token `torchcts-run-N`.
    let mentions_run = |seen: &[Value]| {
        seen.iter().any(|m| {
            m["method"] == "window/workDoneProgress/create"
                && m["params"]["token"].as_str().is_some_and(|t| t.starts_with("torchcts-run"))
        })
    };
    let from_project = saved_with(json!({"torchcts": {"python": "/nonexistent/python"}}));
    assert!(mentions_run(&from_project), "the project's on-save started nothing: {from_project:#?}");
    let editor_off = saved_with(json!({"torchcts": {"python": "/nonexistent/python", "onSave": "off"}}));
    assert!(!mentions_run(&editor_off), "the editor's off did not win: {editor_off:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The project's `level` is the level of a manifest without `semantic_level` (counts, runs),
/// and a manifest's own `semantic_level` wins over it.
#[test]
fn the_projects_level_is_the_default_level() {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-level-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("pyproject.toml"), "[tool.torchcts-lsp]\nlevel = 5\n").unwrap();
    let status_level = |text: &str| {
        let manifest = dir.join("manifest.py");
        std::fs::write(&manifest, text).unwrap();
        let uri = support::lsp_client::file_uri(&manifest);
        let mut client = LspClient::spawn();
        client.initialize(vscode_capabilities());
        client.open(&uri, text, 1);
        let status = client.wait_for(|m| m["method"] == "torchcts/status");
        client.shutdown();
        status["params"]["level"].clone()
    };
    assert_eq!(status_level(VALID), json!(5));
    let own = VALID.replace("\n}", "\n    \"semantic_level\": 2,\n}");
    assert_eq!(status_level(&own), json!(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 26 (first slice): the hover on an entry says what the earlier runs in `results/`
/// showed for the tests that entry lets in, from a real torchcts run's artifacts
/// (`tests/fixtures/runs/artifacts/focused`: `add` float32 PASS, `sub` float32 ERROR on cpu).
#[test]
fn the_hover_on_an_entry_shows_what_the_runs_showed() {
    let dir = std::env::temp_dir().join(format!("torchcts-lsp-evidence-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let artifacts = support::run_artifacts().join("focused/results");
    let results = dir.join("results");
    for file in ["cpu_vm_23gb_latest.json", "cpu_vm_23gb_history/2026-11-30T16-24-12Z.json"] {
        std::fs::create_dir_all(results.join(file).parent().unwrap()).unwrap();
        std::fs::copy(artifacts.join(file), results.join(file)).unwrap();
    }
    let text = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {torch.float32: True},\n    \"semantic_level\": 2,\n    \"capabilities\": {\"inference\": True},\n}\n";
    let manifest = dir.join("manifest.py");
    std::fs::write(&manifest, text).unwrap();
    let uri = support::lsp_client::file_uri(&manifest);
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    client.open(&uri, text, 1);
    client.wait_for(|m| m["method"] == "torchcts/status");
    let at = json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 30}});
    let hover = client.request("textDocument/hover", at);
    let markdown = hover["contents"]["value"].as_str().unwrap_or_default().to_string();
    assert!(markdown.contains("**Runs on `cpu`**"), "{markdown}");
    // The float32 entry lets in 2197 tests on cpu at level 2; the run covered 2 of them.
    assert!(markdown.contains("2197 tests): cpu: 1 passed · 1 errored · 2195 not run yet"), "{markdown}");
    assert!(markdown.contains("Newest run 2026-11-30T16:24:12"), "{markdown}");
    assert!(
        markdown.contains("ERROR `") && markdown.contains("All sample inputs for sub failed before comparison"),
        "{markdown}"
    );
    client.shutdown();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The (line, UTF-16 column) of the `nth` occurrence of `needle` (ASCII lines).
fn position_of(text: &str, needle: &str, nth: usize) -> Value {
    let at = text.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("{needle} #{nth} not found")).0;
    let line = text[..at].matches('\n').count();
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1);
    json!({"line": line, "character": column})
}

#[test]
fn definition_references_and_rename_of_a_module_level_name_in_the_example() {
    let mut client = LspClient::spawn();
    // A client that sends `prepareRename` declares it (`RenameOptions` are for such a client only).
    let init = client.initialize(json!({"textDocument": {"rename": {"prepareSupport": true}}}));
    let caps = &init["capabilities"];
    assert_eq!(caps["definitionProvider"], true, "{caps:#}");
    assert_eq!(caps["referencesProvider"], true);
    assert_eq!(caps["documentHighlightProvider"], true);
    assert_eq!(caps["selectionRangeProvider"], true);
    assert_eq!(caps["renameProvider"]["prepareProvider"], true);

    let path = support::repo_root().join("examples/manifest.py");
    let text = std::fs::read_to_string(&path).unwrap();
    let uri = "file:///tmp/torchcts-lsp-test/navigate/manifest.py";
    client.open(uri, &text, 1);
    let binding = position_of(&text, "FP16_OPS", 0);
    let usage = position_of(&text, "FP16_OPS", 1);
    let at_usage = json!({"textDocument": {"uri": uri}, "position": usage});

    // From the use in `supported_dtypes` to the assignment.
    let definition = client.request("textDocument/definition", at_usage.clone());
    let end = |p: &Value| json!({"line": p["line"], "character": p["character"].as_u64().unwrap() + 8});
    assert_eq!(definition, json!([{"uri": uri, "range": {"start": binding, "end": end(&binding)}}]));

    let mut with_context = at_usage.clone();
    with_context["context"] = json!({"includeDeclaration": true});
    let references = client.request("textDocument/references", with_context);
    assert_eq!(references.as_array().unwrap().len(), 2, "{references:#}");

    let highlights = client.request("textDocument/documentHighlight", at_usage.clone());
    let kinds: Vec<&Value> = highlights.as_array().unwrap().iter().map(|h| &h["kind"]).collect();
    assert_eq!(kinds, vec![&json!(3), &json!(2)], "a write (3) then a read (2): {highlights:#}");

    let prepared = client.request("textDocument/prepareRename", at_usage.clone());
    assert_eq!(prepared, json!({"range": {"start": usage, "end": end(&usage)}, "placeholder": "FP16_OPS"}));

    // Apply the rename's edits as an editor would: the file still loads, with the new name.
    let mut rename = at_usage.clone();
    rename["newName"] = json!("HALF_OPS");
    let edit = client.request("textDocument/rename", rename);
    let mut edits = edit["changes"][uri].as_array().unwrap().clone();
    assert_eq!(edits.len(), 2, "{edit:#}");
    edits.sort_by_key(|e| {
        std::cmp::Reverse((e["range"]["start"]["line"].as_u64(), e["range"]["start"]["character"].as_u64()))
    });
    let mut renamed = text.clone();
    for e in &edits {
        let offset = |p: &Value| -> usize {
            let line = p["line"].as_u64().unwrap() as usize;
            text.lines().take(line).map(|l| l.len() + 1).sum::<usize>() + p["character"].as_u64().unwrap() as usize
        };
        renamed.replace_range(offset(&e["range"]["start"])..offset(&e["range"]["end"]), e["newText"].as_str().unwrap());
    }
    assert_eq!(renamed, text.replace("FP16_OPS", "HALF_OPS"));

    // A builtin as the new name is refused with the reason.
    let mut shadowing = at_usage.clone();
    shadowing["newName"] = json!("len");
    let refused = client.request_response("textDocument/rename", shadowing);
    assert_eq!(refused["error"]["message"], "`len` would shadow the builtin `len`.", "{refused:#}");

    // Selection grows from the name to its pair, the dict, the statement.
    let selection =
        client.request("textDocument/selectionRange", json!({"textDocument": {"uri": uri}, "positions": [usage]}));
    let mut depth = 0;
    let mut range = &selection[0];
    while !range.is_null() {
        depth += 1;
        range = &range["parent"];
    }
    assert!(depth >= 5, "{selection:#}");
    assert_eq!(selection[0]["range"], json!({"start": usage, "end": end(&usage)}));
    client.shutdown();
}
