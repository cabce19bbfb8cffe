"""LSP over a server's stdio for the benchmarks (bench_keystrokes.py,
bench_syntax_keystrokes.py, bench_evidence_lsp.py): framing, reading, waiting for a message, starting the server
with a manifest open, and the median/p95 line they print. Pure stdlib.
"""
import json
import statistics
import subprocess
import time


def frame(obj):
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(proc):
    length = None
    while True:
        header = proc.stdout.readline()
        if not header:
            raise SystemExit("server exited")
        if header.lower().startswith(b"content-length:"):
            length = int(header.split(b":")[1])
        if header in (b"\r\n", b"\n"):
            break
    return json.loads(proc.stdout.read(length))


def send(proc, obj):
    proc.stdin.write(frame(obj))
    proc.stdin.flush()


def wait_for(proc, pred, timeout=None):
    """The first message `pred` accepts; server requests are answered with null. Exits the
    benchmark after `timeout` seconds (None: no limit) without one."""
    deadline = None if timeout is None else time.perf_counter() + timeout
    while deadline is None or time.perf_counter() < deadline:
        msg = read_message(proc)
        if "id" in msg and "method" in msg:  # a server request: answer null
            send(proc, {"jsonrpc": "2.0", "id": msg["id"], "result": None})
        if pred(msg):
            return msg
    raise SystemExit("timed out")


def start_with(exe, uri, text, options=None):
    """The server `exe` started, initialized (with `options` as initializationOptions) and
    with `text` open as `uri`, after its first diagnostics."""
    proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    params = {"capabilities": {}}
    if options is not None:
        params["initializationOptions"] = options
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    wait_for(proc, lambda m: m.get("id") == 1)
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
    wait_for(proc, lambda m: m.get("method") == "textDocument/publishDiagnostics")
    return proc


def show(label, samples):
    """`label: median X ms, p95 Y ms (N edits)`."""
    samples = sorted(samples)
    p95 = samples[int(len(samples) * 0.95) - 1]
    print(f"{label}: median {statistics.median(samples) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms ({len(samples)} edits)")
