"""Keystroke latency over stdio: from sending didChange to receiving publishDiagnostics for
that version, as an editor sees it (server, JSON-RPC framing and pipes included).

    python3 tools/bench_keystrokes.py target/release/torchcts-lsp [manifest.py]

Opens the manifest, waits until the embedded inventory is decoded (a hover with the
per-level table), then sends 200 edits one at a time, waiting for each version's
diagnostics: 100 that flip a capability (the facts change: accounting and inventory hints
are recomputed) and 100 that type into a comment (the facts do not change). After each facts
change it also times a `textDocument/inlayHint` request over the whole file (the per-entry
counts are then computed anew: they are cached per facts). Prints the median and 95th
percentile of each kind. Pure stdlib.
"""
import json
import statistics
import subprocess
import sys
import time

exe = sys.argv[1]
path = sys.argv[2] if len(sys.argv) > 2 else "tests/parity/check/cases/template_complete/manifest.py"
text = open(path, encoding="utf-8").read()
URI = "file:///tmp/bench-keystrokes/manifest.py"


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


def wait_for(proc, pred):
    while True:
        msg = read_message(proc)
        if "id" in msg and "method" in msg:  # a server request: answer null
            send(proc, {"jsonrpc": "2.0", "id": msg["id"], "result": None})
        if pred(msg):
            return msg


def position(offset):
    line = text.count("\n", 0, offset)
    col = offset - (text.rfind("\n", 0, offset) + 1)
    return {"line": line, "character": col}


def main():
    proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    wait_for(proc, lambda m: m.get("id") == 1)
    send(proc, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": text}}})
    wait_for(proc, lambda m: m.get("method") == "textDocument/publishDiagnostics")
    at = position(text.index('"semantic_level"') + 2)
    for attempt in range(500):
        rid = 100 + attempt
        send(proc, {"jsonrpc": "2.0", "id": rid, "method": "textDocument/hover",
                    "params": {"textDocument": {"uri": URI}, "position": at}})
        reply = wait_for(proc, lambda m: m.get("id") == rid)
        if "show-skips" in json.dumps(reply):
            break
        time.sleep(0.02)

    flip_at = text.index("True")  # the first capability or dtype value
    comment_line = text.count("\n") + 1
    version = 1
    timings = {"facts change (flip True/False)": [], "comment typed": [], "inlay hints after a facts change": []}
    last_line = text.count("\n") + 2
    current = "True"
    # A comment line at the end to type into.
    version += 1
    send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": URI, "version": version},
        "contentChanges": [{"range": {"start": {"line": comment_line, "character": 0},
                                      "end": {"line": comment_line, "character": 0}}, "text": "# "}]}})
    wait_for(proc, lambda m: m.get("method") == "textDocument/publishDiagnostics"
             and m["params"].get("version") == version)
    col = 2
    for n in range(200):
        version += 1
        if n % 2 == 0:
            new = "False" if current == "True" else "True"
            start = position(flip_at)
            end = {"line": start["line"], "character": start["character"] + len(current)}
            change = {"range": {"start": start, "end": end}, "text": new}
            current = new
            kind = "facts change (flip True/False)"
        else:
            change = {"range": {"start": {"line": comment_line, "character": col},
                                "end": {"line": comment_line, "character": col}}, "text": "x"}
            col += 1
            kind = "comment typed"
        t0 = time.perf_counter()
        send(proc, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": URI, "version": version}, "contentChanges": [change]}})
        wait_for(proc, lambda m, v=version: m.get("method") == "textDocument/publishDiagnostics"
                 and m["params"].get("version") == v)
        timings[kind].append(time.perf_counter() - t0)
        if kind.startswith("facts"):
            rid = 10_000 + n
            t0 = time.perf_counter()
            send(proc, {"jsonrpc": "2.0", "id": rid, "method": "textDocument/inlayHint", "params": {
                "textDocument": {"uri": URI},
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": last_line, "character": 0}}}})
            wait_for(proc, lambda m, r=rid: m.get("id") == r)
            timings["inlay hints after a facts change"].append(time.perf_counter() - t0)
    proc.kill()
    proc.wait()
    for kind, samples in timings.items():
        samples.sort()
        p95 = samples[int(len(samples) * 0.95) - 1]
        print(f"{kind}: median {statistics.median(samples) * 1000:.2f} ms, p95 {p95 * 1000:.2f} ms ({len(samples)} edits)")


main()
