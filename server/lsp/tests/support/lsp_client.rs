//! A minimal LSP client for black-box tests: spawns the built `torchcts-lsp` binary and
//! speaks JSON-RPC over its stdio with real Content-Length framing, as an editor does.

#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub struct LspClient {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Messages received but not yet consumed by a wait.
    pub backlog: Vec<Value>,
    /// Results to answer server-to-client requests with, by method (default: null).
    answers: std::collections::HashMap<String, Value>,
    /// Folders removed once the server is gone (fields drop after `Drop::drop` kills it).
    scratch: Vec<super::TempDir>,
}

pub const TIMEOUT: Duration = Duration::from_secs(20);

impl LspClient {
    pub fn spawn() -> LspClient {
        Self::spawn_with_args(&[])
    }

    pub fn spawn_with_args(args: &[&str]) -> LspClient {
        Self::spawn_with(args, &[])
    }

    /// Spawns the server without the named environment variables (`VIRTUAL_ENV`, ...), so a
    /// test sees what a user without them would.
    pub fn spawn_with(args: &[&str], env_removed: &[&str]) -> LspClient {
        Self::spawn_with_env(args, env_removed, &[])
    }

    /// [`LspClient::spawn_with`], with environment variables set (`TORCHCTS_LSP_NOW`, ...).
    pub fn spawn_with_env(args: &[&str], env_removed: &[&str], env: &[(&str, &str)]) -> LspClient {
        let mut command = Command::new(env!("CARGO_BIN_EXE_torchcts-lsp"));
        for var in env_removed {
            command.env_remove(var);
        }
        command.envs(env.iter().copied());
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the torchcts-lsp binary is built by cargo test");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length:") {
                        length = v.trim().parse::<usize>().ok();
                    }
                }
                let Some(length) = length else { return };
                let mut body = vec![0u8; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                match serde_json::from_slice::<Value>(&body) {
                    Ok(v) => {
                        if tx.send(v).is_err() {
                            return;
                        }
                    }
                    Err(e) => panic!("server sent invalid JSON: {e}"),
                }
            }
        });
        LspClient {
            child,
            stdin,
            incoming: rx,
            next_id: 1,
            backlog: Vec::new(),
            answers: Default::default(),
            scratch: Vec::new(),
        }
    }

    pub fn send(&mut self, message: Value) {
        let body = serde_json::to_string(&message).expect("serialisable");
        write!(self.stdin, "Content-Length: {}\r\n\r\n{}", body.len(), body).expect("server stdin open");
        self.stdin.flush().expect("flush");
    }

    /// Writes `bytes` as they are (malformed frames included).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("server stdin open");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns the whole response (result or error).
    pub fn request_response(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
    }

    /// The server's process id (to read what it costs from `/proc`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the server to exit by itself (panics after [`TIMEOUT`]).
    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Keeps `dir` (the test's workspace) until this client is dropped, then removes it after
    /// the server: for a folder made where the client is.
    pub fn owns(&mut self, dir: super::TempDir) -> std::path::PathBuf {
        let path = dir.0.clone();
        self.scratch.push(dir);
        path
    }

    /// Answer the server's `method` requests with `result` from now on.
    pub fn answer(&mut self, method: &str, result: Value) {
        self.answers.insert(method.to_string(), result);
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let response = self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none());
        if let Some(err) = response.get("error") {
            panic!("request {method} failed: {err}");
        }
        response["result"].clone()
    }

    /// Waits for the first message (backlog first) that satisfies `pred`; answers
    /// server-to-client requests on the way (null unless [`LspClient::answer`] says otherwise).
    pub fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        self.wait_for_within(TIMEOUT, pred)
    }

    /// [`LspClient::wait_for`] with a time limit of its own (a real torchcts run).
    pub fn wait_for_within(&mut self, limit: Duration, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i);
        }
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.incoming.recv_timeout(left) {
                Ok(msg) => {
                    if msg.get("id").is_some() && msg.get("method").is_some() {
                        let id = msg["id"].clone();
                        let result =
                            msg["method"].as_str().and_then(|m| self.answers.get(m)).cloned().unwrap_or(Value::Null);
                        self.send(json!({"jsonrpc": "2.0", "id": id, "result": result}));
                    }
                    if pred(&msg) {
                        return msg;
                    }
                    self.backlog.push(msg);
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("timed out waiting for a message; backlog: {:#?}", self.backlog)
                }
                Err(RecvTimeoutError::Disconnected) => panic!("server closed its stdout; backlog: {:#?}", self.backlog),
            }
        }
    }

    /// Collects messages for `duration` (for asserting that nothing more arrives).
    pub fn drain_for(&mut self, duration: Duration) -> Vec<Value> {
        let deadline = Instant::now() + duration;
        let mut out = std::mem::take(&mut self.backlog);
        while let Ok(msg) = self.incoming.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            out.push(msg);
        }
        out
    }

    pub fn initialize(&mut self, capabilities: Value) -> Value {
        let result =
            self.request("initialize", json!({"processId": null, "rootUri": null, "capabilities": capabilities}));
        self.notify("initialized", json!({}));
        result
    }

    pub fn open(&mut self, uri: &str, text: &str, version: i64) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}}),
        );
    }

    /// Waits for diagnostics of `uri` (with `version` when given).
    pub fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Value {
        let uri = uri.to_string();
        self.wait_for(move |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && version.is_none_or(|v| m["params"]["version"] == v)
        })["params"]
            .clone()
    }

    /// Shuts the server down and checks that it exits on its own with status 0.
    pub fn shutdown(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        let status = self.wait_exit();
        assert!(status.success(), "server exited with {status}");
    }
}

impl Drop for LspClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A `file://` URI for an absolute path.
pub fn file_uri(path: &std::path::Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// What VS Code (1.9x, vscode-languageclient 9) declares, for what this server answers or
/// sends: the rich forms of every response (code action literals, nested symbols, markdown,
/// the 3.17 kinds, progress, refresh). `workspace.configuration` is left out: a test that
/// wants settings pulled adds it (see [`with_capabilities`]).
pub fn vscode_capabilities() -> Value {
    json!({
        "general": {"positionEncodings": ["utf-16"]},
        "window": {"workDoneProgress": true, "showMessage": {"messageActionItem": {"additionalPropertiesSupport": true}}},
        "workspace": {
            "applyEdit": true,
            "workspaceFolders": true,
            "didChangeConfiguration": {"dynamicRegistration": true},
            "codeLens": {"refreshSupport": true},
            "inlayHint": {"refreshSupport": true},
        },
        "textDocument": {
            "publishDiagnostics": {"relatedInformation": true, "versionSupport": false},
            "hover": {"contentFormat": ["markdown", "plaintext"]},
            "completion": {
                "completionItem": {"snippetSupport": true, "documentationFormat": ["markdown", "plaintext"]},
                "completionItemKind": {"valueSet": (1..=25).collect::<Vec<i32>>()},
            },
            "documentSymbol": {
                "hierarchicalDocumentSymbolSupport": true,
                "symbolKind": {"valueSet": (1..=26).collect::<Vec<i32>>()},
            },
            "codeAction": {
                "isPreferredSupport": true,
                "codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                    "", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite",
                    "source", "source.organizeImports",
                ]}},
            },
            "foldingRange": {"lineFoldingOnly": true, "foldingRangeKind": {"valueSet": ["comment", "imports", "region"]}},
            "codeLens": {},
            "inlayHint": {},
            "rename": {"prepareSupport": true},
        },
    })
}

/// `base` with `extra`'s members added (objects merged member by member, anything else replaced).
pub fn with_capabilities(mut base: Value, extra: Value) -> Value {
    match (&mut base, extra) {
        (Value::Object(b), Value::Object(e)) => {
            for (k, v) in e {
                let merged = match b.remove(&k) {
                    Some(old) => with_capabilities(old, v),
                    None => v,
                };
                b.insert(k, merged);
            }
            base
        }
        (_, e) => e,
    }
}
