//! Black-box tests of the protocol over stdio (issue 11): malformed messages are answered
//! and the server keeps serving, `$/` requests get -32601, `exit` without `shutdown` exits
//! 1, a cancelled request answers -32800, the server exits when its client process dies,
//! an unknown command is an error, and a slow document does not hold up another.

mod support;

use serde_json::{json, Value};
use support::lsp_client::LspClient;

const SMALL: &str = "manifest = {\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n}\n";

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn error_code(m: &Value) -> Option<i64> {
    m.get("error").and_then(|e| e["code"].as_i64())
}

/// Waits for an error response with `code` and returns its id.
fn wait_error(client: &mut LspClient, code: i64) -> Value {
    client.wait_for(|m| m.get("method").is_none() && error_code(m) == Some(code))["id"].clone()
}

/// A manifest followed by a dict of `n` entries: slow enough to analyse that a request on
/// it is still working when the next message arrives.
fn large_manifest(n: usize) -> String {
    let mut text = String::from(SMALL);
    text.push_str("table = {\n");
    for i in 0..n {
        text.push_str(&format!("    {i}: \"entry {i}\",\n"));
    }
    text.push_str("}\n");
    text
}

fn started() -> LspClient {
    let mut client = LspClient::spawn();
    client.initialize(json!({}));
    client
}

#[test]
fn malformed_messages_are_answered_and_the_server_keeps_serving() {
    let mut client = started();
    // A body that is not JSON.
    client.send_raw(&frame("{\"jsonrpc\""));
    assert_eq!(wait_error(&mut client, -32700), Value::Null);
    // No "jsonrpc": answered with the message's id.
    client.send_raw(&frame(r#"{"id": 41, "method": "textDocument/hover", "params": {}}"#));
    assert_eq!(wait_error(&mut client, -32600), json!(41));
    // An object as id: no usable id, so null.
    client.send_raw(&frame(r#"{"jsonrpc": "2.0", "id": {"a": 1}, "method": "shutdown"}"#));
    assert_eq!(wait_error(&mut client, -32600), Value::Null);
    // No Content-Length at all, then a non-numeric one.
    client.send_raw(b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}");
    assert_eq!(wait_error(&mut client, -32700), Value::Null);
    client.send_raw(b"Content-Length: twelve\r\n\r\n{\"jsonrpc\":1}");
    assert_eq!(wait_error(&mut client, -32700), Value::Null);
    // A lowercase header is a header.
    let body = r#"{"jsonrpc": "2.0", "id": 42, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": "file:///nowhere/manifest.py"}}}"#;
    client.send_raw(format!("content-length: {}\r\n\r\n{body}", body.len()).as_bytes());
    let answer = client.wait_for(|m| m["id"] == 42);
    assert!(answer.get("error").is_none(), "{answer:#}");
    // Still serving: a document opens and gets its diagnostics; shutdown and exit give 0.
    client.open("file:///tmp/protocol/manifest.py", SMALL, 1);
    client.diagnostics("file:///tmp/protocol/manifest.py", Some(1));
    client.shutdown();
}

#[test]
fn a_request_for_a_dollar_method_gets_method_not_found() {
    let mut client = started();
    let response = client.request_response("$/unknownRequest", json!({}));
    assert_eq!(error_code(&response), Some(-32601), "{response:#}");
    // A `$/` notification is ignored, as the spec allows.
    client.notify("$/setTrace", json!({"value": "off"}));
    client.shutdown();
}

#[test]
fn exit_without_shutdown_exits_with_1() {
    let mut client = started();
    client.notify("exit", Value::Null);
    assert_eq!(client.wait_exit().code(), Some(1));
}

#[test]
fn an_unknown_command_is_an_error() {
    let mut client = started();
    let response = client.request_response("workspace/executeCommand", json!({"command": "torchcts.noSuchCommand"}));
    assert_eq!(error_code(&response), Some(-32602), "{response:#}");
    client.shutdown();
}

#[test]
fn a_cancelled_request_answers_request_cancelled() {
    let mut client = started();
    let uri = "file:///tmp/protocol-cancel/manifest.py";
    let text = large_manifest(40_000);
    // didOpen, a hover that needs its own analysis of the large text, and its cancel, in one
    // write: the cancel arrives while the hover works.
    let mut bytes = Vec::new();
    for message in [
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}}),
        json!({"jsonrpc": "2.0", "id": 900, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 6}}}),
        json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 900}}),
    ] {
        bytes.extend(frame(&message.to_string()));
    }
    client.send_raw(&bytes);
    let answer = client.wait_for(|m| m["id"] == 900);
    assert_eq!(error_code(&answer), Some(-32800), "{answer:#}");
    client.shutdown();
}

#[test]
fn a_slow_document_does_not_hold_up_requests_on_another() {
    let mut client = started();
    let (slow, quick) = ("file:///tmp/protocol-slow/a/manifest.py", "file:///tmp/protocol-slow/b/manifest.py");
    client.open(quick, SMALL, 1);
    client.diagnostics(quick, Some(1));
    client.open(slow, &large_manifest(40_000), 1);
    client.diagnostics(slow, Some(1));
    // An edit of the slow document, a hover on it (which needs the new text analysed), then
    // a hover on the quick one, in one write. Served one after the other (as when analyses ran
    // on the async workers), the answers would come in this order; the quick one is first.
    let edit = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": slow, "version": 2},
        "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# edited\n"}]}});
    let hover = |id: i64, uri: &str| json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 6}}});
    let mut bytes = frame(&edit.to_string());
    bytes.extend(frame(&hover(902, slow).to_string()));
    bytes.extend(frame(&hover(901, quick).to_string()));
    client.send_raw(&bytes);
    let first = client.wait_for(|m| m.get("method").is_none() && (m["id"] == 901 || m["id"] == 902));
    assert_eq!(first["id"], 901, "the hover on the quick document waited for the slow one: {first:#}");
    client.wait_for(|m| m["id"] == 902);
    client.diagnostics(slow, Some(2));
    client.shutdown();
}

#[test]
fn the_server_exits_when_its_client_process_dies() {
    let mut parent = std::process::Command::new("sleep").arg("600").spawn().expect("sleep runs");
    let mut client = LspClient::spawn();
    client.request("initialize", json!({"processId": parent.id(), "rootUri": null, "capabilities": {}}));
    client.notify("initialized", json!({}));
    client.open("file:///tmp/protocol-parent/manifest.py", SMALL, 1);
    client.diagnostics("file:///tmp/protocol-parent/manifest.py", Some(1));
    parent.kill().expect("kill the stand-in client");
    parent.wait().expect("reap it, so that it no longer exists");
    assert_eq!(client.wait_exit().code(), Some(1));
}
