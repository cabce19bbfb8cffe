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
import sys
import time

from lsp_pipe import send, show, start_with, wait_for

exe = sys.argv[1]
path = sys.argv[2] if len(sys.argv) > 2 else "tests/parity/check/cases/template_complete/manifest.py"
text = open(path, encoding="utf-8").read()
URI = "file:///tmp/bench-keystrokes/manifest.py"


def position(offset):
    line = text.count("\n", 0, offset)
    col = offset - (text.rfind("\n", 0, offset) + 1)
    return {"line": line, "character": col}


def main():
    proc = start_with(exe, URI, text)
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
        show(kind, samples)


main()
