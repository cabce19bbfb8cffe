"""Time from spawning torchcts-lsp to its first diagnostics, and its resident memory then
and once the embedded inventory is decoded (after a hover with per-level counts).

    python3 tools/bench_startup.py target/release/torchcts-lsp [manifest.py]

Prints the median of 5 runs. Pure stdlib; speaks LSP over the server's stdio.
"""
import json
import statistics
import subprocess
import sys
import time

exe = sys.argv[1]
path = sys.argv[2] if len(sys.argv) > 2 else "tests/parity/check/cases/template_complete/manifest.py"
text = open(path, encoding="utf-8").read()


def frame(obj):
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(proc):
    header = proc.stdout.readline()
    if not header:
        raise SystemExit("server exited")
    length = int(header.split(b":")[1])
    proc.stdout.readline()
    return proc.stdout.read(length)


def one_run():
    start = time.perf_counter()
    proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}))
    proc.stdin.flush()
    read_message(proc)  # the initialize response; editors wait for it too
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": "file:///tmp/bench/manifest.py", "languageId": "python", "version": 1, "text": text}}}))
    proc.stdin.flush()
    while b"publishDiagnostics" not in read_message(proc):
        pass
    elapsed = time.perf_counter() - start
    rss_kb = rss(proc)
    # Hover on semantic_level until the per-level table (the decoded inventory) is there.
    line = next(i for i, l in enumerate(text.splitlines()) if '"semantic_level"' in l)
    col = text.splitlines()[line].index('"semantic_level"') + 2
    for attempt in range(200):
        proc.stdin.write(frame({"jsonrpc": "2.0", "id": 100 + attempt, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": "file:///tmp/bench/manifest.py"}, "position": {"line": line, "character": col}}}))
        proc.stdin.flush()
        while True:
            reply = read_message(proc)
            if b'"id":%d' % (100 + attempt) in reply.replace(b" ", b""):
                break
        if b"show-skips" in reply:
            break
        time.sleep(0.02)
    rss_decoded_kb = rss(proc)
    proc.kill()
    proc.wait()
    return elapsed, rss_kb, rss_decoded_kb


def rss(proc):
    with open(f"/proc/{proc.pid}/status") as status:
        return int(next(line for line in status if line.startswith("VmRSS")).split()[1])


runs = [one_run() for _ in range(5)]
print(f"spawn to first diagnostics: median {statistics.median(r[0] for r in runs) * 1000:.1f} ms")
print(f"resident memory after first diagnostics: median {statistics.median(r[1] for r in runs) / 1024:.1f} MiB")
print(f"resident memory with the inventory decoded: median {statistics.median(r[2] for r in runs) / 1024:.1f} MiB")
