//! Black-box tests of the protocol over stdio (issue 11): malformed messages are answered
//! and the server keeps serving, `$/` requests get -32601, `exit` without `shutdown` exits
//! 1, a cancelled request answers -32800 and stops its work, a newer edit stops the stale
//! analysis, the server exits when its client process dies, an unknown command is an error,
//! and a slow document does not hold up another.

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

/// A manifest followed by a dict of `n` entries (~25 bytes each): slow enough to analyse
/// that a request on it is still working when the next message arrives; 20,000 stay under
/// the 512 KiB analysis limit.
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

/// show-skips prints a regex-valued dtype entry in every record it filters: with a 60 KB
/// regex (thousands of records) the report is hundreds of MB, so the editor gets its first
/// 8 MiB and a line that says where the rest is.
#[test]
fn show_skips_in_the_editor_is_cut_at_8_mib() {
    let mut client = started();
    let uri = "file:///tmp/protocol-show-skips/manifest.py";
    let alternatives: Vec<String> = (0..10_000).map(|i| format!("op{i}")).collect();
    let text = format!(
        "manifest = {{\n    \"manifest_version\": 1,\n    \"device_name\": \"cpu\",\n    \"supported_dtypes\": {{\"torch.float32\": \"^({})$\"}},\n}}\n",
        alternatives.join("|")
    );
    client.open(uri, &text, 1);
    client.diagnostics(uri, Some(1));
    let report = client
        .request("workspace/executeCommand", json!({"command": "torchcts.showSkips", "arguments": [{"uri": uri}]}));
    let report = report.as_str().expect("a Markdown report");
    assert!(report.len() < (8 << 20) + 4096, "{} bytes", report.len());
    assert!(report.contains("NOT-RUN AUDIT") && report.contains("dtype_regex_filtered"), "{}", &report[..2000]);
    assert!(
        report.contains("... cut at 8 MiB: `torchcts-lsp skips FILE` prints all of it."),
        "{}",
        &report[report.len() - 500..]
    );
    client.shutdown();
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
    let text = large_manifest(20_000);
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

/// CPU time (user + system, in clock ticks) the server process has used so far.
fn cpu_ticks(client: &LspClient) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", client.pid())).expect("/proc/PID/stat is readable");
    // Fields after the command name (which may hold spaces) start at its closing ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').expect("a stat line") + 2..].split(' ').collect();
    // utime and stime: fields 14 and 15 of the line, 12 and 13 after the name.
    fields[11].parse::<u64>().expect("utime") + fields[12].parse::<u64>().expect("stime")
}

/// Waits until the server has used no CPU for half a second (its background work, such as
/// a cancelled request still running, is over) and returns its CPU time then.
fn cpu_ticks_once_idle(client: &LspClient) -> u64 {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    let mut last = cpu_ticks(client);
    let mut quiet_polls = 0;
    while quiet_polls < 10 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        let now = cpu_ticks(client);
        quiet_polls = if now == last { quiet_polls + 1 } else { 0 };
        last = now;
    }
    last
}

/// A started server with a large document open and analysed.
fn with_large_document(uri: &str) -> LspClient {
    let mut client = started();
    client.open(uri, &large_manifest(20_000), 1);
    client.diagnostics(uri, Some(1));
    client
}

fn code_action_request(id: i64, uri: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/codeAction", "params": {
        "textDocument": {"uri": uri},
        "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 8}},
        "context": {"diagnostics": []}}})
}

/// The work stops, not only the answer: what a cancelled code action costs the server (CPU
/// time until it is idle again) is a small part of what the same request costs when it runs
/// to the end. The quick fixes of the manifest's missing keys are each checked on the edited
/// text, a whole analysis of the large file per fix. Without cooperative cancellation the
/// cancelled request costs as much as the full one. The bound is a ratio of CPU times, with
/// a factor of 4 to spare.
#[cfg(target_os = "linux")]
#[test]
fn a_cancelled_code_action_stops_its_work() {
    let uri = "file:///tmp/protocol-cancel-action/manifest.py";
    let mut client = with_large_document(uri);
    // The inventory loads in the background and then analyses the document again.
    let before_full = cpu_ticks_once_idle(&client);
    client.send(code_action_request(910, uri));
    let answer = client.wait_for(|m| m["id"] == 910);
    let fixes = answer["result"].as_array().map_or(0, |a| a.iter().filter(|a| a["kind"] == "quickfix").count());
    assert!(fixes > 0, "the request has fixes to check: {answer:#}");
    let full = cpu_ticks_once_idle(&client) - before_full;

    let before_cancelled = cpu_ticks(&client);
    let mut bytes = frame(&code_action_request(911, uri).to_string());
    bytes.extend(frame(&json!({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 911}}).to_string()));
    client.send_raw(&bytes);
    let answer = client.wait_for(|m| m["id"] == 911);
    assert_eq!(error_code(&answer), Some(-32800), "{answer:#}");
    let cancelled = cpu_ticks_once_idle(&client) - before_cancelled;
    assert!(
        cancelled * 4 < full,
        "the cancelled request went on working: {cancelled} ticks against {full} for the whole request"
    );
    client.shutdown();
}

/// A newer edit cancels the analysis of the text it replaces: an edit of a large document
/// at once followed by one that replaces it with a small text costs the server a small part
/// of what the same edit alone costs (its analysis). Without the cancellation the edited
/// large text is analysed to the end first.
#[cfg(target_os = "linux")]
#[test]
fn a_newer_edit_stops_the_stale_analysis() {
    let uri = "file:///tmp/protocol-cancel-edit/manifest.py";
    let mut client = with_large_document(uri);
    let comment = |version: i64| {
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "# edited\n"}]}})
    };
    let before_full = cpu_ticks_once_idle(&client);
    client.send(comment(2));
    client.diagnostics(uri, Some(2));
    let full = cpu_ticks_once_idle(&client) - before_full;

    let before_replaced = cpu_ticks(&client);
    let replace = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 4}, "contentChanges": [{"text": SMALL}]}});
    let mut bytes = frame(&comment(3).to_string());
    bytes.extend(frame(&replace.to_string()));
    client.send_raw(&bytes);
    client.diagnostics(uri, Some(4));
    let stale = cpu_ticks_once_idle(&client) - before_replaced;
    assert!(stale * 4 < full, "the stale analysis went on: {stale} ticks against {full} for the edit alone");
    client.shutdown();
}

#[test]
fn a_slow_document_does_not_hold_up_requests_on_another() {
    let mut client = started();
    let (slow, quick) = ("file:///tmp/protocol-slow/a/manifest.py", "file:///tmp/protocol-slow/b/manifest.py");
    client.open(quick, SMALL, 1);
    client.diagnostics(quick, Some(1));
    client.open(slow, &large_manifest(20_000), 1);
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

/// Stdin and stdout that are not pipes (here sockets) are served through tokio's blocking
/// stdio instead of the event loop (`server/stdio.rs`), with the same answers.
#[test]
fn a_client_on_sockets_instead_of_pipes_is_served() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::os::unix::net::UnixStream;
    let (mut to_server, server_input) = UnixStream::pair().expect("socket pair");
    let (server_output, from_server) = UnixStream::pair().expect("socket pair");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"))
        .stdin(std::os::fd::OwnedFd::from(server_input))
        .stdout(std::os::fd::OwnedFd::from(server_output))
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("server starts");
    from_server.set_read_timeout(Some(std::time::Duration::from_secs(30))).expect("timeout");
    let mut from_server = BufReader::new(from_server);
    let mut send = |message: Value| to_server.write_all(&frame(&message.to_string())).expect("send");
    let mut answer_to = |id: i64| -> Value {
        loop {
            let mut length = 0;
            loop {
                let mut line = String::new();
                assert!(from_server.read_line(&mut line).expect("read") > 0, "server closed its output");
                if let Some(n) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = n.trim().parse().expect("length");
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            from_server.read_exact(&mut body).expect("body");
            let message: Value = serde_json::from_slice(&body).expect("json");
            if message["id"] == id && message.get("method").is_none() {
                return message;
            }
        }
    };
    let uri = "file:///tmp/protocol-sockets/manifest.py";
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}));
    assert!(answer_to(1)["result"]["capabilities"].is_object());
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": SMALL}}}));
    send(json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentSymbol", "params": {
        "textDocument": {"uri": uri}}}));
    let symbols = answer_to(2);
    assert_eq!(symbols["result"][0]["name"], "manifest", "{symbols:#}");
    send(json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}));
    assert!(answer_to(3).get("error").is_none());
    send(json!({"jsonrpc": "2.0", "method": "exit"}));
    assert_eq!(child.wait().expect("server exits").code(), Some(0));
}

/// A document over the live-analysis limit (1 MiB) gets one warning that says so, and no
/// analysis on request either; brought back under the limit, it is analysed again.
#[test]
fn a_document_over_the_live_limit_gets_one_finding_that_says_so() {
    let mut client = started();
    let uri = "file:///tmp/protocol-large/manifest.py";
    let huge = format!("{SMALL}X = [{}]\n", "1, ".repeat(200_000));
    client.open(uri, &huge, 1);
    let diagnostics = client.diagnostics(uri, Some(1));
    let all = diagnostics["diagnostics"].as_array().expect("diagnostics").clone();
    assert_eq!(all.len(), 1, "{diagnostics:#}");
    assert_eq!(all[0]["code"], "file-too-large", "{diagnostics:#}");
    // 200,000 times `1, ` (3 bytes) and the brackets: the list is 586 KiB of the file.
    let message = all[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("analyses manifests up to 512 KiB"), "{message}");
    assert!(message.contains("`X = ...` at line 5 (586 KiB, about 200,001 entries)"), "{message}");
    assert!(message.contains("torchcts-lsp check"), "{message}");
    let hover = client
        .request("textDocument/hover", json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 6}}));
    assert_eq!(hover, Value::Null);
    // A bad value under the limit is reported again.
    let small = SMALL.replace("\"cpu\"", "42");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": small}]}),
    );
    let diagnostics = client.diagnostics(uri, Some(2));
    let codes: Vec<&Value> =
        diagnostics["diagnostics"].as_array().expect("diagnostics").iter().map(|d| &d["code"]).collect();
    assert!(!codes.is_empty() && !codes.contains(&&json!("file-too-large")), "{diagnostics:#}");
    client.shutdown();
}
