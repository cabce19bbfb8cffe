//! Black-box tests of capability negotiation (issue 32): a client gets only what it declared,
//! per the LSP 3.17 spec's fallbacks. Each rule is checked with a minimal client (no
//! capabilities: LSP 1.0 shapes) and, as the control that shows the test can fail, with a
//! VS Code-like client that still gets the rich forms. Also: settings pulled with
//! `workspace/configuration`, `settings: null` keeping them, and lenses and inlay hints that
//! are there after an open without any edit (refresh when the inventory has loaded).

mod support;

use serde_json::{json, Value};
use std::time::Duration;
use support::lsp_client::{file_uri, vscode_capabilities, with_capabilities, LspClient};
use support::TempDir;

/// Line 6: an unknown key (a quick fix) and a duplicate key (a finding with a related
/// place); line 7: a `skip_ops` name only the inventory knows is no operator.
const MANIFEST: &str = "import torch\nmanifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"semantic_level\": 2,\n    \"supported_dtypes\": {torch.float32: True},\n    \"capabilities\": {\"generator\": True, \"inference\": True, \"inference\": True},\n    \"skip_ops\": [\"not_an_operator_xyz\"],\n}\n";

/// The symbol kinds of LSP 1.0 (File=1..Array=18), all a client without `valueSet` knows.
const BASE_SYMBOL_KINDS: std::ops::RangeInclusive<u64> = 1..=18;
/// The completion kinds of LSP 1.0 (Text=1..Reference=18).
const BASE_COMPLETION_KINDS: std::ops::RangeInclusive<u64> = 1..=18;

/// The manifest written in a folder of its own, which `client` removes when it goes.
fn manifest_uri(client: &mut LspClient, name: &str) -> String {
    let dir = client.owns(TempDir::fresh(&format!("torchcts-lsp-caps-{name}")));
    let path = dir.join("manifest.py");
    std::fs::write(&path, MANIFEST).unwrap();
    file_uri(&path)
}

/// A client with `capabilities`, the manifest open and its first diagnostics.
fn opened(name: &str, capabilities: Value) -> (LspClient, String, Value, Value) {
    let mut client = LspClient::spawn();
    let init = client.initialize(capabilities);
    let uri = manifest_uri(&mut client, name);
    client.open(&uri, MANIFEST, 1);
    let diagnostics = client.diagnostics(&uri, Some(1));
    (client, uri, init, diagnostics)
}

fn minimal() -> (LspClient, String, Value, Value) {
    opened("minimal", json!({}))
}

fn vscode() -> (LspClient, String, Value, Value) {
    opened("vscode", vscode_capabilities())
}

fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}})
}

fn find<'a>(diagnostics: &'a Value, code: &str) -> &'a Value {
    diagnostics["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {diagnostics:#}"))
}

fn code_actions(client: &mut LspClient, uri: &str, diagnostic: &Value) -> Vec<Value> {
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": diagnostic["range"], "context": {"diagnostics": [diagnostic]}}),
    );
    actions.as_array().cloned().unwrap_or_default()
}

fn unknown_key(diagnostics: &Value) -> Value {
    diagnostics["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap_or("").contains("Unknown capabilities key 'generator'"))
        .cloned()
        .unwrap_or_else(|| panic!("no unknown key in {diagnostics:#}"))
}

#[test]
fn code_actions_are_commands_without_literal_support() {
    let (mut client, uri, init, diagnostics) = minimal();
    // `CodeActionOptions` is valid only with literal support: a plain `true`.
    assert_eq!(init["capabilities"]["codeActionProvider"], json!(true), "{init:#}");
    let actions = code_actions(&mut client, &uri, &unknown_key(&diagnostics));
    assert!(!actions.is_empty());
    for action in &actions {
        // A `Command`: its `command` is the id (a string), no kind, edit or diagnostics.
        assert!(action["command"].is_string(), "not a Command: {action:#}");
        assert!(action.get("kind").is_none() && action.get("edit").is_none(), "{action:#}");
    }
    // Without `workspace.applyEdit` a fix cannot be offered as a command: only runs are.
    assert!(actions.iter().all(|a| a["command"] != "torchcts.applyEdit"), "{actions:#?}");
    assert!(actions.iter().any(|a| a["command"] == "torchcts.runLevel"), "{actions:#?}");
    client.shutdown();

    // The control: code action literals with `isPreferred`, and the kinds in `initialize`.
    let (mut client, uri, init, diagnostics) = vscode();
    assert!(init["capabilities"]["codeActionProvider"]["codeActionKinds"].is_array(), "{init:#}");
    let actions = code_actions(&mut client, &uri, &unknown_key(&diagnostics));
    let fix = actions.iter().find(|a| a["kind"] == "quickfix").unwrap_or_else(|| panic!("{actions:#?}"));
    assert!(fix["edit"]["changes"][uri.as_str()].is_array(), "{fix:#}");
    assert!(fix["isPreferred"].is_boolean(), "{fix:#}");
    client.shutdown();
}

#[test]
fn a_fix_without_literal_support_is_a_command_that_applies_its_edit() {
    let (mut client, uri, _, diagnostics) = opened("apply", json!({"workspace": {"applyEdit": true}}));
    let actions = code_actions(&mut client, &uri, &unknown_key(&diagnostics));
    let fix = actions
        .iter()
        .find(|a| a["title"] == "Replace with 'device_generator'")
        .unwrap_or_else(|| panic!("no fix in {actions:#?}"));
    assert_eq!(fix["command"], "torchcts.applyEdit", "{fix:#}");
    client.request("workspace/executeCommand", json!({"command": fix["command"], "arguments": fix["arguments"]}));
    let apply = client.wait_for(|m| m["method"] == "workspace/applyEdit");
    let edits = &apply["params"]["edit"]["changes"][uri.as_str()];
    assert_eq!(edits[0]["newText"], "device_generator", "{apply:#}");
    client.shutdown();
}

#[test]
fn is_preferred_only_with_is_preferred_support() {
    let literals = json!({"textDocument": {"codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}}}});
    let (mut client, uri, _, diagnostics) = opened("preferred", literals);
    let actions = code_actions(&mut client, &uri, &unknown_key(&diagnostics));
    let fix = actions.iter().find(|a| a["kind"] == "quickfix").unwrap_or_else(|| panic!("{actions:#?}"));
    assert!(fix.get("isPreferred").is_none(), "{fix:#}");
    client.shutdown();
}

#[test]
fn symbols_are_flat_and_of_base_kinds_without_hierarchy_or_value_set() {
    let (mut client, uri, _, _) = minimal();
    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    let symbols = symbols.as_array().unwrap();
    assert!(symbols.len() > 3, "{symbols:#?}");
    for s in symbols {
        assert!(s["location"]["uri"] == uri.as_str() && s.get("children").is_none(), "not flat: {s:#}");
        assert!(BASE_SYMBOL_KINDS.contains(&s["kind"].as_u64().unwrap()), "{s:#}");
    }
    // The entries name the section that holds them.
    let entry = symbols.iter().find(|s| s["name"] == "inference").unwrap_or_else(|| panic!("{symbols:#?}"));
    assert_eq!(entry["containerName"], "capabilities", "{entry:#}");
    client.shutdown();

    // The control: nested, and a section is an Object (19).
    let (mut client, uri, _, _) = vscode();
    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    let tree = serde_json::to_string(&symbols).unwrap();
    assert!(symbols[0]["children"].is_array(), "{symbols:#}");
    assert!(tree.contains("\"kind\":19"), "{symbols:#}");
    client.shutdown();
}

#[test]
fn hover_and_completion_documentation_are_plain_text_without_markdown() {
    let (mut client, uri, _, _) = minimal();
    let hover = client.request("textDocument/hover", at(&uri, 4, 8));
    assert_eq!(hover["contents"]["kind"], "plaintext", "{hover:#}");
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("semantic_level") && !text.contains('`') && !text.contains("**"), "{text}");
    // A dtype after `torch.` (line 5): its kind within Text..Reference, its text plain.
    let items = client.request("textDocument/completion", at(&uri, 5, 31));
    let items = items.as_array().unwrap_or_else(|| panic!("{items:#}"));
    assert!(items.iter().any(|i| i["label"] == "torch.float16"), "{items:#?}");
    for item in items {
        assert!(BASE_COMPLETION_KINDS.contains(&item["kind"].as_u64().unwrap()), "{item:#}");
        if let Some(doc) = item.get("documentation") {
            assert_eq!(doc["kind"], "plaintext", "{item:#}");
        }
    }
    let keys = client.request("textDocument/completion", at(&uri, 2, 4));
    let documented: Vec<&Value> =
        keys.as_array().unwrap().iter().filter(|i| i.get("documentation").is_some()).collect();
    assert!(!documented.is_empty(), "{keys:#}");
    assert!(documented.iter().all(|i| i["documentation"]["kind"] == "plaintext"), "{documented:#?}");
    client.shutdown();

    // The control: markdown, and a dtype is an EnumMember (20).
    let (mut client, uri, _, _) = vscode();
    let hover = client.request("textDocument/hover", at(&uri, 4, 8));
    assert_eq!(hover["contents"]["kind"], "markdown", "{hover:#}");
    let items = client.request("textDocument/completion", at(&uri, 5, 31));
    assert!(items.as_array().unwrap().iter().any(|i| i["kind"] == 20), "{items:#}");
    let keys = client.request("textDocument/completion", at(&uri, 2, 4));
    assert!(keys.as_array().unwrap().iter().any(|i| i["documentation"]["kind"] == "markdown"), "{keys:#}");
    client.shutdown();
}

#[test]
fn rename_options_with_prepare_provider_only_with_prepare_support() {
    // LSP 3.17: `RenameOptions` may only be specified if the client states `prepareSupport`.
    let (client, _, init, _) = minimal();
    assert_eq!(init["capabilities"]["renameProvider"], true, "{:#}", init["capabilities"]);
    client.shutdown();
    let (client, _, init, _) = vscode();
    assert_eq!(init["capabilities"]["renameProvider"], json!({"prepareProvider": true}));
    client.shutdown();
}

#[test]
fn related_information_only_when_declared() {
    let (client, _, _, diagnostics) = minimal();
    let duplicate = find(&diagnostics, "duplicate-key");
    assert!(duplicate.get("relatedInformation").is_none(), "{duplicate:#}");
    client.shutdown();

    let (client, _, _, diagnostics) = vscode();
    let duplicate = find(&diagnostics, "duplicate-key");
    assert_eq!(duplicate["relatedInformation"][0]["message"], "the value that wins", "{duplicate:#}");
    client.shutdown();
}

/// Runs the level with a fake Python and returns every message up to its summary.
fn run_messages(capabilities: Value) -> Vec<Value> {
    let python = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/runs/python_pass")
        .canonicalize()
        .unwrap();
    let mut client = LspClient::spawn();
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": capabilities,
               "initializationOptions": {"torchcts": {"python": python, "timeoutSeconds": 60}}}),
    );
    client.notify("initialized", json!({}));
    let uri = manifest_uri(&mut client, "progress");
    client.open(&uri, MANIFEST, 1);
    client.diagnostics(&uri, Some(1));
    let started = client.request(
        "workspace/executeCommand",
        json!({"command": "torchcts.runLevel", "arguments": [{"uri": uri, "level": 1}]}),
    );
    assert_eq!(started["started"], true);
    let summary = client.wait_for(|m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"].as_str().is_some_and(|t| t.starts_with("TorchCTS run"))
    });
    let mut messages = std::mem::take(&mut client.backlog);
    messages.push(summary);
    client.shutdown();
    messages
}

#[test]
fn no_progress_without_work_done_progress() {
    let methods = |messages: &[Value]| -> Vec<String> {
        messages.iter().filter_map(|m| m["method"].as_str()).map(str::to_string).collect()
    };
    let minimal = methods(&run_messages(json!({})));
    assert!(!minimal.iter().any(|m| m == "window/workDoneProgress/create" || m == "$/progress"), "{minimal:?}");
    // The control: a client that declared it sees the token created and the progress.
    let vscode = methods(&run_messages(vscode_capabilities()));
    assert!(vscode.iter().any(|m| m == "window/workDoneProgress/create"), "{vscode:?}");
    assert!(vscode.iter().any(|m| m == "$/progress"), "{vscode:?}");
}

/// The inlay hints of the whole manifest `uri`.
fn hints(client: &mut LspClient, uri: &str) -> Value {
    let params = json!({"textDocument": {"uri": uri},
                        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 9, "character": 0}}});
    client.request("textDocument/inlayHint", params)
}

#[test]
fn settings_null_keeps_the_settings_of_a_client_that_serves_no_configuration() {
    let mut client = LspClient::spawn();
    client.request(
        "initialize",
        json!({"processId": null, "rootUri": null, "capabilities": vscode_capabilities(),
               "initializationOptions": {"torchcts": {"inlayHints": false}}}),
    );
    client.notify("initialized", json!({}));
    let uri = manifest_uri(&mut client, "null");
    client.open(&uri, MANIFEST, 1);
    client.diagnostics(&uri, Some(1));
    client.notify("workspace/didChangeConfiguration", json!({"settings": null}));
    assert_eq!(hints(&mut client, &uri), Value::Null, "inlayHints: false was reset");
    // The control: settings sent as an object do apply.
    client.notify("workspace/didChangeConfiguration", json!({"settings": {"torchcts": {"inlayHints": true}}}));
    let shown = hints(&mut client, &uri);
    assert!(shown.as_array().is_some_and(|h| !h.is_empty()), "{shown:#}");
    client.shutdown();
}

#[test]
fn settings_are_pulled_at_initialized_and_when_they_change() {
    let mut client = LspClient::spawn();
    client.answer("workspace/configuration", json!([{"inlayHints": false}]));
    let capabilities = with_capabilities(vscode_capabilities(), json!({"workspace": {"configuration": true}}));
    client.initialize(capabilities);
    let pulled = client.wait_for(|m| m["method"] == "workspace/configuration");
    assert_eq!(pulled["params"]["items"][0]["section"], "torchcts", "{pulled:#}");
    let uri = manifest_uri(&mut client, "pull");
    client.open(&uri, MANIFEST, 1);
    client.diagnostics(&uri, Some(1));
    assert_eq!(hints(&mut client, &uri), Value::Null, "the pulled inlayHints: false");
    // What a pull-model client sends when its settings change: null, and the server asks.
    client.answer("workspace/configuration", json!([{"inlayHints": true}]));
    client.notify("workspace/didChangeConfiguration", json!({"settings": null}));
    client.wait_for(|m| m["method"] == "workspace/configuration");
    // The answer is applied after it arrives; an editor asks again on each refresh (one
    // from the inventory's load may come first).
    let mut shown = hints(&mut client, &uri);
    for _ in 0..3 {
        if shown.as_array().is_some_and(|h| !h.is_empty()) {
            break;
        }
        client.wait_for(|m| m["method"] == "workspace/inlayHint/refresh");
        shown = hints(&mut client, &uri);
    }
    assert!(shown.as_array().is_some_and(|h| !h.is_empty()), "{shown:#}");
    client.shutdown();
}

#[test]
fn lenses_and_hints_are_there_after_an_open_without_any_edit() {
    let mut client = LspClient::spawn();
    client.initialize(vscode_capabilities());
    let uri = manifest_uri(&mut client, "refresh");
    // Opened at once, while the inventory loads.
    client.open(&uri, MANIFEST, 1);
    let lens_params = json!({"textDocument": {"uri": uri}});
    let mut lenses = client.request("textDocument/codeLens", lens_params.clone());
    let mut shown = hints(&mut client, &uri);
    // As an editor does: asked again on each refresh request, at most a few times.
    for _ in 0..3 {
        let empty = |v: &Value| v.as_array().is_none_or(|a| a.is_empty());
        if !empty(&lenses) && !empty(&shown) {
            break;
        }
        client
            .wait_for(|m| m["method"] == "workspace/inlayHint/refresh" || m["method"] == "workspace/codeLens/refresh");
        lenses = client.request("textDocument/codeLens", lens_params.clone());
        shown = hints(&mut client, &uri);
    }
    let titles: Vec<&str> = lenses.as_array().unwrap().iter().filter_map(|l| l["command"]["title"].as_str()).collect();
    assert!(titles.iter().any(|t| t.starts_with("▶ Run level 2 on cpu")), "{lenses:#}");
    assert!(shown.as_array().is_some_and(|h| !h.is_empty()), "{shown:#}");
    // The first diagnostics hold the inventory's findings (the unknown skip_ops name).
    let first = client.diagnostics(&uri, Some(1));
    let text = serde_json::to_string(&first).unwrap();
    assert!(text.contains("not_an_operator_xyz"), "{first:#}");
    client.shutdown();
}

#[test]
fn after_the_inventory_loads_the_client_is_asked_to_refresh_only_when_it_declared_so() {
    // A client without refresh support gets no refresh request (it would be an error).
    let mut client = LspClient::spawn();
    client.initialize(json!({}));
    let uri = manifest_uri(&mut client, "norefresh");
    client.open(&uri, MANIFEST, 1);
    client.diagnostics(&uri, Some(1));
    let later = client.drain_for(Duration::from_millis(1500));
    assert!(!later.iter().any(|m| m["method"].as_str().is_some_and(|m| m.ends_with("/refresh"))), "{later:#?}");
    drop(client);
}
