//! The stdio guard: sits between the editor (real stdin/stdout) and tower-lsp-server's
//! `Server` (connected through in-memory pipes), so that no client can end the server but
//! by closing its input or by `exit`.
//!
//! tower-lsp-server 0.23 ends its read loop on the first frame its codec rejects (a body
//! that is not JSON, a missing or non-numeric `Content-Length`, an `id` that is an object),
//! matches header names case-sensitively, drops the -32601 of a `$/` request, and exits 0
//! on `exit` whatever came before. The guard therefore:
//! - reads frames itself (header names in any case, resynchronising on the next
//!   `Content-Length` after a broken header) and answers what is malformed: -32700 for a
//!   header or body that cannot be read, -32600 for JSON that is not a JSON-RPC 2.0
//!   message; the answer carries the message's id when it has a usable one, else null;
//! - answers a request for a `$/` method with -32601 itself;
//! - forwards every valid message, re-framed with a canonical header;
//! - ends the process on `exit` with 0 after a `shutdown` request and 1 without, and when
//!   the client process named in `initialize`'s `processId` has died (polled every few
//!   seconds with `kill(pid, 0)`);
//! - writes the server's frames and its own answers to stdout whole, never interleaved.
//!
//! Only the end of the input ends the server otherwise: then the server finishes the
//! requests in flight and the guard writes their answers before returning.

use serde_json::{json, Value};
use std::process::ExitCode;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// A header block longer than this without its blank line is garbage, not a header.
const MAX_HEADER_BYTES: usize = 16 * 1024;
const CONTENT_LENGTH: &[u8] = b"content-length";
/// How often the client's process is checked.
const PARENT_POLL: Duration = Duration::from_secs(3);

/// JSON-RPC error codes the guard answers with.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;

/// Serves `server` (a tower-lsp-server `Server::serve` future reading `to_server`'s peer and
/// writing `from_server`'s peer) to a client on `input`/`output`; returns the exit code.
pub async fn guard<I, O, S, F>(
    input: I,
    output: O,
    to_server: S,
    from_server: F,
    server: impl std::future::Future<Output = ()>,
) -> ExitCode
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
    S: AsyncWrite + Unpin + Send + 'static,
    F: AsyncRead + Unpin + Send + 'static,
{
    let (frames_tx, frames_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let (exit_tx, mut exit_rx) = mpsc::unbounded_channel::<u8>();
    let writer = tokio::spawn(write_frames(output, frames_rx));
    tokio::spawn(read_client(input, to_server, frames_tx.clone(), exit_tx));
    let forward = forward_server(from_server, frames_tx);
    let drained = async {
        // The input ended: the server answers what is in flight, then everything is written.
        tokio::join!(server, forward);
        let _ = writer.await;
    };
    // `exit` is sent before its reader returns, which ends the server's input and so lets
    // `drained` finish too: the exit code is looked at first, or a random pick of the two
    // ready branches could end an `exit` without `shutdown` with 0. A channel closed
    // without a code (the input ended) leaves it to `drained`.
    tokio::select! {
        biased;
        Some(code) = exit_rx.recv() => ExitCode::from(code),
        _ = drained => ExitCode::SUCCESS,
    }
}

/// Writes whole frames to the client, in the order they were queued.
async fn write_frames(mut output: impl AsyncWrite + Unpin, mut frames: mpsc::UnboundedReceiver<Vec<u8>>) {
    while let Some(frame) = frames.recv().await {
        if output.write_all(&frame).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
}

/// Queues the server's frames for the client.
async fn forward_server(from_server: impl AsyncRead + Unpin, frames: mpsc::UnboundedSender<Vec<u8>>) {
    let mut reader = FrameReader::new(from_server);
    while let Some(frame) = reader.next().await {
        if let Frame::Body(body) = frame {
            if frames.send(framed(&body)).is_err() {
                return;
            }
        }
    }
}

fn framed(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn error_frame(id: Value, code: i64, message: &str) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    framed(body.to_string().as_bytes())
}

/// Reads the client's frames, answers the malformed ones, forwards the rest.
async fn read_client(
    input: impl AsyncRead + Unpin,
    mut to_server: impl AsyncWrite + Unpin,
    frames: mpsc::UnboundedSender<Vec<u8>>,
    exit: mpsc::UnboundedSender<u8>,
) {
    let mut reader = FrameReader::new(input);
    let mut shutdown_requested = false;
    while let Some(frame) = reader.next().await {
        let body = match frame {
            Frame::Body(body) => body,
            Frame::BrokenHeader(why) => {
                let _ = frames.send(error_frame(Value::Null, PARSE_ERROR, why));
                continue;
            }
        };
        match check_message(&body) {
            Verdict::Forward(kind) => {
                match kind {
                    Kind::Shutdown => shutdown_requested = true,
                    Kind::Exit => {
                        let _ = exit.send(if shutdown_requested { 0 } else { 1 });
                        return;
                    }
                    Kind::Initialize(Some(pid)) => {
                        tokio::spawn(watch_parent(pid, exit.clone()));
                    }
                    Kind::Initialize(None) | Kind::Other => {}
                }
                if to_server.write_all(&framed(&body)).await.is_err() {
                    return;
                }
            }
            Verdict::Answer(id, code, message) => {
                let _ = frames.send(error_frame(id, code, &message));
            }
        }
    }
    // End of input: closing the pipe lets the server finish what is in flight and stop.
    let _ = to_server.shutdown().await;
}

/// Ends the process (exit code 1) once the client process is gone.
async fn watch_parent(pid: i32, exit: mpsc::UnboundedSender<u8>) {
    loop {
        tokio::time::sleep(PARENT_POLL).await;
        // SAFETY: signal 0 only checks that the process exists; nothing is sent.
        let alive =
            unsafe { libc::kill(pid, 0) } == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        if !alive {
            eprintln!("torchcts-lsp: the client process {pid} is gone; exiting");
            let _ = exit.send(1);
            return;
        }
    }
}

/// What the guard does with one message body.
#[derive(Debug, PartialEq)]
enum Verdict {
    Forward(Kind),
    /// Answer with this error instead of forwarding: (id, code, message).
    Answer(Value, i64, String),
}

/// The messages the guard itself keeps track of.
#[derive(Debug, PartialEq)]
enum Kind {
    Initialize(Option<i32>),
    Shutdown,
    Exit,
    Other,
}

/// Checks one body against JSON-RPC 2.0 as tower-lsp-server's codec reads it (an `id` is an
/// integer that fits i64, a string or null).
fn check_message(body: &[u8]) -> Verdict {
    let answer = |id: Value, code: i64, message: &str| Verdict::Answer(id, code, message.to_string());
    let message: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return answer(Value::Null, PARSE_ERROR, &format!("Parse error: {e}")),
    };
    let Some(object) = message.as_object() else {
        return answer(Value::Null, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message object");
    };
    let id = match object.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Null)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.is_i64() => Some(id.clone()),
        Some(_) => {
            return answer(Value::Null, INVALID_REQUEST, "Invalid Request: `id` must be an integer, a string or null")
        }
    };
    let answer_id = id.clone().unwrap_or(Value::Null);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return answer(answer_id, INVALID_REQUEST, "Invalid Request: `jsonrpc` must be \"2.0\"");
    }
    let method = match object.get("method") {
        None => {
            let is_response = id.is_some() && (object.contains_key("result") || object.contains_key("error"));
            return if is_response {
                Verdict::Forward(Kind::Other)
            } else {
                answer(answer_id, INVALID_REQUEST, "Invalid Request: neither a request, a notification nor a response")
            };
        }
        Some(Value::String(method)) => method.as_str(),
        Some(_) => return answer(answer_id, INVALID_REQUEST, "Invalid Request: `method` must be a string"),
    };
    match (method, id) {
        (m, Some(id)) if m.starts_with("$/") => {
            answer(id, METHOD_NOT_FOUND, &format!("Method not found: {m} (no `$/` request is supported)"))
        }
        ("initialize", Some(_)) => {
            let pid = object.get("params").and_then(|p| p.get("processId")).and_then(Value::as_i64);
            Verdict::Forward(Kind::Initialize(pid.and_then(|p| i32::try_from(p).ok()).filter(|p| *p > 0)))
        }
        ("shutdown", Some(_)) => Verdict::Forward(Kind::Shutdown),
        ("exit", None) => Verdict::Forward(Kind::Exit),
        _ => Verdict::Forward(Kind::Other),
    }
}

enum Frame {
    Body(Vec<u8>),
    /// A header without a usable `Content-Length`; the reader has moved on to the next one.
    BrokenHeader(&'static str),
}

/// Splits a byte stream into LSP frames: header lines (names in any case) up to a blank
/// line, then `Content-Length` bytes of body.
struct FrameReader<R> {
    input: R,
    buf: Vec<u8>,
    /// After a broken header: skip to the next `Content-Length` at or after this index
    /// before reading on (done on the next call, so the broken one is answered at once).
    resync_from: Option<usize>,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    fn new(input: R) -> Self {
        FrameReader { input, buf: Vec::new(), resync_from: None }
    }

    /// Reads more input; false at its end (or on a read error, which ends it too).
    async fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 16 * 1024];
        match self.input.read(&mut chunk).await {
            Ok(0) | Err(_) => false,
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }

    /// The next frame, or `None` at the end of the input.
    async fn next(&mut self) -> Option<Frame> {
        if let Some(from) = self.resync_from.take() {
            self.resync(from).await?;
        }
        loop {
            // Blank lines between frames are tolerated silently.
            let blank = self.buf.iter().take_while(|b| matches!(b, b'\r' | b'\n')).count();
            self.buf.drain(..blank);
            let Some((header_len, block_len)) = header_end(&self.buf) else {
                if self.buf.len() > MAX_HEADER_BYTES {
                    self.resync_from = Some(1);
                    return Some(Frame::BrokenHeader("Parse error: a header without its blank line"));
                }
                if !self.fill().await {
                    return None;
                }
                continue;
            };
            match content_length(&self.buf[..header_len]) {
                Header::Length(length) => {
                    self.buf.drain(..block_len);
                    while self.buf.len() < length {
                        if !self.fill().await {
                            return None;
                        }
                    }
                    return Some(Frame::Body(self.buf.drain(..length).collect()));
                }
                Header::Missing(why) => {
                    match glued_header(&self.buf[..header_len]) {
                        // `xyzContent-Length: 2`: the header starts after the garbage.
                        Some(start) => drop(self.buf.drain(..start)),
                        None => {
                            self.buf.drain(..block_len);
                            self.resync_from = Some(0);
                        }
                    }
                    return Some(Frame::BrokenHeader(why));
                }
                Header::Garbage => {
                    // Garbage before a header: the next `Content-Length` may sit inside it.
                    self.resync_from = Some(1);
                    return Some(Frame::BrokenHeader("Parse error: not an LSP header"));
                }
            }
        }
    }

    /// Drops bytes up to the next `Content-Length` (any case) at or after `from`; `None` when
    /// the input ends first.
    async fn resync(&mut self, mut from: usize) -> Option<()> {
        loop {
            if let Some(i) = find_ignore_case(&self.buf, CONTENT_LENGTH, from) {
                self.buf.drain(..i);
                return Some(());
            }
            // Keep a tail that may be the start of the name.
            let keep = (CONTENT_LENGTH.len() - 1).min(self.buf.len());
            self.buf.drain(..self.buf.len() - keep);
            from = 0;
            if !self.fill().await {
                return None;
            }
        }
    }
}

/// (length of the header lines, length including the blank line) once the blank line is in.
fn header_end(buf: &[u8]) -> Option<(usize, usize)> {
    let mut line_start = 0;
    while let Some(nl) = buf[line_start..].iter().position(|&b| b == b'\n') {
        let line_end = line_start + nl;
        let line = &buf[line_start..line_end];
        if line.is_empty() || line == b"\r" {
            return Some((line_start, line_end + 1));
        }
        line_start = line_end + 1;
    }
    None
}

enum Header {
    Length(usize),
    Missing(&'static str),
    /// The first line is not `name: value`: the bytes are not a header at all.
    Garbage,
}

fn content_length(header: &[u8]) -> Header {
    let mut length = Header::Missing("Parse error: no Content-Length header");
    for (i, line) in header.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return if i == 0 { Header::Garbage } else { Header::Missing("Parse error: a malformed header line") };
        };
        let name = &line[..colon];
        let is_token = !name.is_empty() && name.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-');
        if !is_token {
            return if i == 0 { Header::Garbage } else { Header::Missing("Parse error: a malformed header line") };
        }
        if name.eq_ignore_ascii_case(CONTENT_LENGTH) {
            length = match std::str::from_utf8(&line[colon + 1..]).ok().and_then(|v| v.trim().parse().ok()) {
                Some(n) => Header::Length(n),
                None => Header::Missing("Parse error: Content-Length is not a number"),
            };
        }
    }
    length
}

/// Where a `Content-Length` glued to preceding garbage starts inside a header block (one at
/// the start of a line was read as the header it is).
fn glued_header(header: &[u8]) -> Option<usize> {
    let mut from = 1;
    while let Some(i) = find_ignore_case(header, CONTENT_LENGTH, from) {
        if header[i - 1] != b'\n' {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

fn find_ignore_case(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from >= haystack.len() || haystack.len() - from < needle.len() {
        return None;
    }
    (from..=haystack.len() - needle.len()).find(|&i| haystack[i..i + needle.len()].eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8]) -> Vec<Result<String, &'static str>> {
        let mut reader = FrameReader::new(input);
        let mut out = Vec::new();
        while let Some(frame) = reader.next().await {
            out.push(match frame {
                Frame::Body(b) => Ok(String::from_utf8(b).unwrap()),
                Frame::BrokenHeader(why) => Err(why),
            });
        }
        out
    }

    #[tokio::test]
    async fn headers_in_any_case_and_resynchronisation() {
        let input = b"content-length: 2\r\n\r\n{}Content-Length: x\r\n\r\n{\"a\":1}CONTENT-LENGTH: 3\r\n\r\n[1]garbage\r\n\r\nContent-Length: 1\r\n\r\n5";
        let got = frames(input).await;
        assert_eq!(got.len(), 5, "{got:?}");
        assert_eq!(got[0], Ok("{}".into()));
        assert!(got[1].is_err());
        assert_eq!(got[2], Ok("[1]".into()));
        assert!(got[3].is_err());
        assert_eq!(got[4], Ok("5".into()));
    }

    #[tokio::test]
    async fn garbage_glued_to_a_header_keeps_the_header() {
        let got = frames(b"xyzContent-Length: 2\r\n\r\n{}").await;
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[1], Ok("{}".into()));
    }

    #[test]
    fn messages_checked_as_json_rpc() {
        let verdict = |s: &str| check_message(s.as_bytes());
        assert!(matches!(verdict("{\"jsonrpc\""), Verdict::Answer(Value::Null, PARSE_ERROR, _)));
        assert!(matches!(verdict("{\"id\":1,\"method\":\"x\"}"), Verdict::Answer(_, INVALID_REQUEST, _)));
        assert!(matches!(
            verdict("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}"),
            Verdict::Answer(Value::Null, INVALID_REQUEST, _)
        ));
        assert!(matches!(
            verdict("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"$/x\"}"),
            Verdict::Answer(_, METHOD_NOT_FOUND, _)
        ));
        assert_eq!(
            verdict("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":1}}"),
            Verdict::Forward(Kind::Other)
        );
        assert_eq!(verdict("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}"), Verdict::Forward(Kind::Other));
        assert_eq!(
            verdict("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"processId\":42}}"),
            Verdict::Forward(Kind::Initialize(Some(42)))
        );
        assert_eq!(verdict("{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}"), Verdict::Forward(Kind::Exit));
    }
}
