"""Whole-process time of CLI commands, several binaries alternating (hyperfine is not
installed here): wall-clock and CPU (user + system) median and minimum, and page faults.

    python3 tools/bench_cli.py [-n 30] "skips examples/manifest.py" BIN [BIN ...]

Output goes to /dev/null. Pure stdlib.
"""
import os
import statistics
import sys
import time

args = sys.argv[1:]
runs = 30
if args[:1] == ["-n"]:
    runs, args = int(args[1]), args[2:]
command, binaries = args[0].split(), args[1:]
devnull = os.open(os.devnull, os.O_WRONLY)
quiet = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
wall = {b: [] for b in binaries}
cpu = {b: [] for b in binaries}
faults = {b: [] for b in binaries}
for _ in range(runs):
    for b in binaries:
        start = time.perf_counter()
        pid = os.posix_spawn(b, [b] + command, os.environ, file_actions=quiet)
        _, _, usage = os.wait4(pid, 0)
        wall[b].append((time.perf_counter() - start) * 1000)
        cpu[b].append((usage.ru_utime + usage.ru_stime) * 1000)
        faults[b].append(usage.ru_minflt)
print(f"{' '.join(command)}: {runs} runs each, alternating")
for b in binaries:
    print(
        f"  {b}: wall median {statistics.median(wall[b]):.1f} ms (min {min(wall[b]):.1f}), "
        f"cpu median {statistics.median(cpu[b]):.1f} ms (min {min(cpu[b]):.1f}), "
        f"page faults {statistics.median(faults[b]):.0f}"
    )
