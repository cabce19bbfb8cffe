#!/usr/bin/env python3
"""The server's evidence over stdio (issue 35): the code lens with evidence, cold and warm,
and the first hover over a results folder of 64 real-size history files.

    python3 tools/bench_evidence_lsp.py [--bin target/release/torchcts-lsp] [--lenses 40]
        [--template PATH] [--history DIR]

Lens: torchcts' complete template on cpu (found as `tools/bench_report.py` finds it) with its
full evidence run beside it (`bench_report.write_full_run`: a record for every test of level
8). The server is started, the manifest opened, and `textDocument/codeLens` asked `--lenses`
times in a row, each answer awaited: the first (the counts computed) and the median and
spread of the others (the document's facts and the evidence unchanged: the warm case).

First hover: `--history DIR` is a folder made by `evidence_bench generate-history DIR` (64
plain history files of 3.7 MB and a reference to the newest). Its files are hard-linked as
`results/` beside a copy of the template, a fresh server is started, and a hover on
`semantic_level` is sent right after `didOpen`: the time to its answer is what a user waits
for the first hover (the inventory, the analysis and the evidence index read, all of it).
A second hover after it shows the warm cost. Then one new history file is linked in (the
newest under a later name, as the next run stores it), `workspace/didChangeWatchedFiles`
says so, and a code lens is asked: its time is the index's refresh, which must read that
file alone (reading the other 64 again would cost what the first hover did). The server's
CPU time (user + system, from /proc) is printed beside each wall time: the machine is shared,
so wall time alone says more about the load than about the server.

`--commands N`: `report`, `check --results` and `analyze --results` on the same folder, N
times each, wall and CPU time (the children's rusage) of each. Give `--bin` twice or more
(`--bin A --bin B`) to measure several builds in the same run, alternating.
Pure stdlib besides `bench_report.py`.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_report import ROOT, template_path, write_full_run  # noqa: E402
import lsp_pipe  # noqa: E402


class Server:
    def __init__(self, exe, work):
        env = dict(os.environ, TORCHCTS_LSP_NOW="2026-12-02T10:00:00Z")
        self.proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=work, env=env)
        self.next_id = 1
        root = "file://" + work
        self.request("initialize", {"capabilities": {}, "rootUri": root,
                                    "workspaceFolders": [{"uri": root, "name": "bench"}]})
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def send(self, obj):
        lsp_pipe.send(self.proc, obj)

    def wait_for(self, pred):
        return lsp_pipe.wait_for(self.proc, pred)

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == rid and "method" not in m)

    def open(self, uri, text):
        self.send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})

    def close(self):
        self.request("shutdown", None)
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.proc.wait(timeout=10)


def cpu_seconds(pid):
    """User + system time of a running process, from /proc (Linux)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def timed(server, method, params):
    t0 = time.perf_counter()
    reply = server.request(method, params)
    return (time.perf_counter() - t0) * 1000, reply


def lenses(exe, template, count):
    work = tempfile.mkdtemp(prefix="torchcts-bench-lens-")
    try:
        _, records, size = write_full_run(exe, work, template, "8")
        uri = "file://" + os.path.join(work, "manifest.py")
        text = open(os.path.join(work, "manifest.py"), encoding="utf-8").read()
        server = Server(exe, work)
        server.open(uri, text)
        server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        times = []
        evidence = 0
        for _ in range(count):
            ms, reply = timed(server, "textDocument/codeLens", {"textDocument": {"uri": uri}})
            times.append(ms)
            evidence = sum(1 for lens in reply["result"] or [] if lens["command"]["title"].startswith("cpu: "))
        server.close()
        warm = times[1:]
        print(f"code lens, complete template, full run ({records} records, {size / 1e6:.1f} MB): "
              f"{evidence} evidence lenses; first {times[0]:.1f} ms, then median {statistics.median(warm):.2f} ms "
              f"(min {min(warm):.2f}, max {max(warm):.2f} at request {times.index(max(warm)) + 1}, {len(warm)} requests)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def history_workdir(template, history):
    """A copy of the template on cpu with `history`'s files hard-linked as `results/`:
    (the folder, the manifest's text, the number of files)."""
    work = tempfile.mkdtemp(prefix="torchcts-bench-hover-")
    text = open(template, encoding="utf-8").read().replace('"device_name": "auto"', '"device_name": "cpu"')
    with open(os.path.join(work, "manifest.py"), "w", encoding="utf-8") as f:
        f.write(text)
    files = 0
    for folder, _, names in os.walk(history):
        target = os.path.join(work, "results", os.path.relpath(folder, history))
        os.makedirs(target, exist_ok=True)
        for name in names:
            os.link(os.path.join(folder, name), os.path.join(target, name))
            files += 1
    return work, text, files


def first_hover(exe, template, history):
    work, text, files = history_workdir(template, history)
    try:
        uri = "file://" + os.path.join(work, "manifest.py")
        offset = text.index('"semantic_level"') + 2
        at = {"line": text.count("\n", 0, offset), "character": offset - (text.rfind("\n", 0, offset) + 1)}
        params = {"textDocument": {"uri": uri}, "position": at}
        server = Server(exe, work)
        cpu0 = cpu_seconds(server.proc.pid)
        t0 = time.perf_counter()
        server.open(uri, text)
        reply = server.request("textDocument/hover", params)
        first = (time.perf_counter() - t0) * 1000
        first_cpu = (cpu_seconds(server.proc.pid) - cpu0) * 1000
        warm, again = timed(server, "textDocument/hover", params)
        server.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
        # The next run's history file: the newest linked under a later name.
        histories = [os.path.join(work, "results", d) for d in os.listdir(os.path.join(work, "results"))
                     if d.endswith("_history")]
        newest = max(os.listdir(histories[0]))
        new_file = os.path.join(histories[0], "2099-01-01T00-00-00Z.json")
        os.link(os.path.join(histories[0], newest), new_file)
        cpu1 = cpu_seconds(server.proc.pid)
        t1 = time.perf_counter()
        server.send({"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles",
                     "params": {"changes": [{"uri": "file://" + new_file, "type": 1}]}})
        server.request("textDocument/codeLens", {"textDocument": {"uri": uri}})
        after_new = (time.perf_counter() - t1) * 1000
        new_cpu = (cpu_seconds(server.proc.pid) - cpu1) * 1000
        server.close()
        said = json.dumps(reply)
        print(f"first hover, {files} files in results/ ({history}): {first:.0f} ms from didOpen, "
              f"server CPU {first_cpu:.0f} ms (evidence section: {'Runs on' in said}), the next {warm:.1f} ms "
              f"(evidence section: {'Runs on' in json.dumps(again)}); one new history file: code lens after "
              f"didChangeWatchedFiles {after_new:.1f} ms, server CPU {new_cpu:.0f} ms")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def commands(exes, template, history, runs):
    work, _, files = history_workdir(template, history)
    try:
        argv = {"report": ["report", "manifest.py", "--torch", "2.12.1"],
                "check --results": ["check", "manifest.py", "--results", "results"],
                "analyze --results": ["analyze", "manifest.py", "--results", "results", "--torch", "2.12.1"]}
        for name, args in argv.items():
            figures = {exe: [] for exe in exes}
            for _ in range(runs):
                for exe in exes:
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    t0 = time.perf_counter()
                    subprocess.run([exe] + args, cwd=work, capture_output=True)
                    wall = time.perf_counter() - t0
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                    figures[exe].append((wall, cpu))
            for exe, runs_of in figures.items():
                walls = sorted(w for w, _ in runs_of)
                cpus = sorted(c for _, c in runs_of)
                print(f"{name}, {files} files ({history}), {exe}: wall median {statistics.median(walls):.2f} s "
                      f"({walls[0]:.2f}-{walls[-1]:.2f}), CPU median {statistics.median(cpus):.2f} s "
                      f"({cpus[0]:.2f}-{cpus[-1]:.2f})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append")
    ap.add_argument("--lenses", type=int, default=40)
    ap.add_argument("--template")
    ap.add_argument("--history")
    ap.add_argument("--commands", type=int, default=0)
    ap.add_argument("--no-lenses", action="store_true")
    args = ap.parse_args()
    exes = [os.path.abspath(b) for b in (args.bin or [os.path.join(ROOT, "target", "release", "torchcts-lsp")])]
    template = template_path(args.template)
    for exe in exes:
        print(f"== {exe}")
        if not args.no_lenses:
            lenses(exe, template, args.lenses)
        if args.history:
            first_hover(exe, template, args.history)
    if args.history and args.commands:
        commands(exes, template, args.history, args.commands)


if __name__ == "__main__":
    main()
