"""Audience scale-out: command → `state` at the last /overlay client, one process against a
writer + Redis + edges, and the memory each client costs an edge.

    python bench/edges.py [--clients 200 500 1000] [--edges 2] [--commands 60] [--client raw|sio|ts]
                          [--json FILE]

For each client count it runs two topologies, one after the other on this machine:

* **single**: `chgk-overlay serve --demo`, every client on it (today's one process);
* **edges**: `serve --demo --redis` (no clients of its own) + redis-server + `--edges` edge
  processes, the clients split evenly over the edges.

The load generator is bench/clients.py in processes of its own (≤ 250 clients each, `raw` by
default: a quarter of python-socketio's CPU per message, so that the clients starve the servers
less on two cores). Commands are real (spin, start_timer, undo, undo on the demo game), sent to
the writer over keep-alive HTTP one at a time, the next 10 ms after every client has the last.
Per row: last client median / p99 / max, the writer's and each edge's CPU per command, the
edges' RSS before and with the clients (→ kB per client), and the cores others kept busy.
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ClientPool, Server, busy_s, cpu_s, machine, pct, rss_kb
from latency import Driver, send_cycle
from tests.support import TOKEN, Redis


class Writer:
    def __init__(self, srv: Server) -> None:
        self.srv = srv
        self.driver = Driver(srv.url, TOKEN)
        self.i = 0

    def send(self) -> int:
        self.i += 1
        return send_cycle(self.driver, self.i - 1)


def wait_synced(edge: Server, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if edge.http.get(edge.url + "/api/edge", timeout=5).json().get("synced"):
            return
        time.sleep(0.1)
    raise RuntimeError("edge did not sync")


def run(topology: str, n: int, edges: int, commands: int, kind: str, tmp: Path) -> dict:
    started: list = []  # stopped in reverse in `finally`, also when a later one fails to start
    redis = Redis(tmp / "redis") if topology == "edges" else None
    writer = Server(tmp / "writer", redis=redis.url if redis else None)
    servers = [Server(tmp / f"edge{i}", kind="edge", redis=redis.url) for i in range(edges)] if redis else [writer]
    pools: list[ClientPool] = []
    try:
        for proc in ([redis] if redis else []) + [writer] + [s for s in servers if s is not writer]:
            started.append(proc)
            proc.start(timeout=180) if isinstance(proc, Server) else proc.start()
        for s in servers:
            if s is not writer:
                wait_synced(s)
        target = Writer(writer)
        time.sleep(1.0)
        idle_kb = [rss_kb(s.proc.pid) for s in servers]
        share = [n // len(servers) + (1 if i < n % len(servers) else 0) for i in range(len(servers))]
        pools = [ClientPool(s.url, k, kind=kind) for s, k in zip(servers, share)]
        for p in pools:
            p.wait_ready(300)
        for _ in range(12):  # warm-up
            rev = target.send()
            for p in pools:
                p.wait_all(rev, timeout=60)
        gc.collect()
        gc.disable()
        procs = [writer.proc.pid] + [s.proc.pid for s in servers if s is not writer]
        clients = [pid for p in pools for pid in p.pids]
        ours = procs + clients
        cpu0 = {pid: cpu_s(pid) for pid in ours}
        busy0, w0 = busy_s(), time.monotonic()
        last_ms: list[float] = []
        for _ in range(commands):
            t0 = time.perf_counter_ns()
            rev = target.send()
            last = max(p.wait_all(rev, timeout=60) for p in pools)
            last_ms.append((last - t0) / 1e6)
            time.sleep(0.01)
        wall = time.monotonic() - w0
        cpu1 = {pid: cpu_s(pid) for pid in ours}
        gc.enable()
        others = max(0.0, (busy_s() - busy0) - sum(cpu1[p] - cpu0[p] for p in ours)) / wall
        with_kb = [rss_kb(s.proc.pid) for s in servers]
    finally:
        for p in pools:
            p.close()
        for proc in reversed(started):
            proc.stop()
    per_client_kb = sum(w - i for w, i in zip(with_kb, idle_kb)) / n
    return {"topology": topology, "clients": n, "edges": edges if redis else 0,
            "last_median": statistics.median(last_ms), "last_p99": pct(last_ms, 99), "last_max": max(last_ms),
            "writer_cpu_ms": (cpu1[procs[0]] - cpu0[procs[0]]) * 1000 / commands,
            "edge_cpu_ms": [round((cpu1[p] - cpu0[p]) * 1000 / commands, 2) for p in procs[1:]],
            "clients_cpu_cores": sum(cpu1[p] - cpu0[p] for p in clients) / wall,
            "rss_idle_kb": idle_kb, "rss_clients_kb": with_kb, "kb_per_client": per_client_kb,
            "others_cores": others}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, nargs="+", default=[200, 500, 1000])
    ap.add_argument("--edges", type=int, default=2)
    ap.add_argument("--commands", type=int, default=60)
    ap.add_argument("--client", choices=("sio", "raw", "ts"), default="raw")
    ap.add_argument("--topologies", nargs="+", default=["single", "edges"])
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    print(machine(), flush=True)
    rows = []
    for n in args.clients:
        for topology in args.topologies:
            with tempfile.TemporaryDirectory(prefix="chgk-edges-") as tmp:
                row = run(topology, n, args.edges, args.commands, args.client, Path(tmp))
            rows.append(row)
            print(f"{topology:6} {n:5} clients: last client median {row['last_median']:7.1f} ms, "
                  f"p99 {row['last_p99']:7.1f}, max {row['last_max']:7.1f}; writer {row['writer_cpu_ms']:.2f} ms CPU/cmd, "
                  f"edges {row['edge_cpu_ms']} ms CPU/cmd; {row['kb_per_client']:.1f} kB/client; "
                  f"clients {row['clients_cpu_cores']:.2f} cores, others {row['others_cores']:.2f} cores",
                  flush=True)
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1))
    sys.exit(0)


if __name__ == "__main__":
    main()
