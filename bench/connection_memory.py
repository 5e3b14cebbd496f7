"""Where a held overlay websocket's memory goes: tracemalloc inside the server.

    python bench/connection_memory.py [--clients 1000] [--top 25]

Starts `python -m overlay serve --demo` (eventlet) in a temp folder through a small wrapper that
starts tracemalloc on SIGUSR1 and, on SIGUSR2, writes what is still allocated since then (after a
collection) by file and line. Warm-up: 20 clients join and leave; then SIGUSR1, `--clients`
`ts` websockets join `/overlay` (bench/clients.py), SIGUSR2. Prints the server's RSS per
connection (tracemalloc's own bookkeeping included, so higher than bench/held_overlays.py's),
the traced bytes per connection, the top lines and the live object counts. Stops by itself.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT, ClientPool, free_port, machine, rss_kb
from tests.support import PASSWORD, TOKEN, stop_process, wait_until_up

WRAPPER = r'''
import collections, gc, os, signal, sys, tracemalloc
out, top, base = sys.argv[1], int(sys.argv[2]), {}

def start(*_):
    gc.collect()
    tracemalloc.start(12)
    base["snap"] = tracemalloc.take_snapshot()

def report(*_):
    gc.collect()
    skip = [tracemalloc.Filter(False, tracemalloc.__file__)]
    now, then = tracemalloc.take_snapshot().filter_traces(skip), base["snap"].filter_traces(skip)
    kinds = collections.Counter(type(o).__name__ for o in gc.get_objects())
    lines = [f"traced {sum(s.size_diff for s in now.compare_to(then, 'filename'))}"]
    lines += [f"line {s.size_diff} {s.count_diff} {s.traceback}" for s in now.compare_to(then, "lineno")[:top]]
    lines += [f"objects {name} {n}" for name, n in kinds.most_common(top)]
    with open(out + ".part", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.rename(out + ".part", out)

signal.signal(signal.SIGUSR1, start)
signal.signal(signal.SIGUSR2, report)
from overlay.cli import main
sys.exit(main(sys.argv[3:]))
'''


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--top", type=int, default=25)
    args = p.parse_args()
    print(f"# {machine()}", flush=True)
    with tempfile.TemporaryDirectory(prefix="chgk-conn-memory-") as tmp:
        port, out, log = free_port(), Path(tmp) / "report.txt", Path(tmp) / "server.log"
        env = {**os.environ, "CHGK_OVERLAY_TOKEN": TOKEN, "CHGK_OVERLAY_PASSWORD": PASSWORD, "PYTHONUNBUFFERED": "1"}
        with log.open("wb") as sink:
            proc = subprocess.Popen([sys.executable, "-c", WRAPPER, str(out), str(args.top), "serve", "--port", str(port),
                                     "--data", str(Path(tmp) / "data"), "--demo"],
                                    cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT)
            url = f"http://127.0.0.1:{port}"
            try:
                wait_until_up(proc, url + "/api/time", 120, output=log.read_text)
                warm = ClientPool(url, 20, kind="ts", poll_ms=20)
                warm.wait_ready()
                warm.close()
                time.sleep(1)
                proc.send_signal(signal.SIGUSR1)
                time.sleep(3)
                rss0 = rss_kb(proc.pid)
                pool = ClientPool(url, args.clients, per_worker=1250, kind="ts", poll_ms=20)
                try:
                    pool.wait_ready(300)
                    time.sleep(2)
                    rss1 = rss_kb(proc.pid)
                    proc.send_signal(signal.SIGUSR2)
                    deadline = time.monotonic() + 600
                    while not out.exists() and time.monotonic() < deadline:
                        time.sleep(1)
                finally:
                    pool.close()
            finally:
                stop_process(proc)
        lines = out.read_text().splitlines()
    n = args.clients
    traced = int(lines[0].split()[1])
    print(f"RSS {rss0 / 1024:.0f} → {rss1 / 1024:.0f} MB: {(rss1 - rss0) / n:.1f} kB per connection (tracemalloc on); "
          f"traced {traced / n / 1024:.1f} kB per connection")
    print("\nper connection, by line (kB, allocations):")
    for line in lines[1:]:
        kind, _, rest = line.partition(" ")
        if kind == "line":
            size, count, where = rest.split(" ", 2)
            print(f"  {int(size) / n / 1024:6.2f} kB {int(count) / n:6.1f}  {where}")
    print("\nlive objects (whole process):")
    print("  " + ", ".join(" ".join(line.split()[1:]) for line in lines if line.startswith("objects ")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
