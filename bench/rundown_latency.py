"""A rundown take → `graphics` at every /overlay client, beside a game command → `state`.

    python bench/rundown_latency.py [--mode eventlet] [--clients 1 50 200] [--n 200]

One server (`python -m overlay serve --demo`, tests.support.Server). For each client count, two
pools of python-socketio clients in their own processes (bench/clients.py): one stamps `state`
by rev while the driver sends game commands (spin, start_timer, undo, undo — recorded in SQLite,
synchronous=FULL, then broadcast, as bench/latency.py does); the other stamps `graphics` by seq
while the driver takes rundown items (two straps on one layer, taken in turn: each take a layer
change committed with the rundown in one transaction, then broadcast). Per action: from the
send to the moment the LAST client had it; median and p99. One action at a time, the next 10 ms
after every client has the previous.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from _common import ClientPool, Server, machine, pct
from latency import CYCLE, REGULAR, Driver
from tests.support import TOKEN


def measure(srv: Server, n: int, count: int, event: str, send) -> list[float]:  # noqa: ANN001
    pool = ClientPool(srv.url, n, event=event)
    try:
        pool.wait_ready()
        out = []
        for i in range(count):
            t0 = time.perf_counter_ns()
            mark = send(i)
            last = pool.wait_all(mark)
            out.append((last - t0) / 1e6)
            time.sleep(0.01)
        return out
    finally:
        pool.close()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--mode", default="eventlet")
    p.add_argument("--clients", type=int, nargs="+", default=[1, 50, 200])
    p.add_argument("--n", type=int, default=200, help="actions per client count and kind")
    p.add_argument("--json")
    args = p.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="chgk-rundown-bench-"))
    srv = Server(tmp / "data", mode=args.mode).start()
    driver = Driver(srv.url, TOKEN)
    rid = srv.api("POST", "/api/rundowns", {"name": "bench"})["id"]
    items = [srv.api("POST", f"/api/rundowns/{rid}/items",
                     {"label": label, "graphic": "lower-third", "layer": "straps", "data": {"title": label}})["id"]
             for label in ("Ведущий", "Капитан")]

    def command(i: int) -> int:
        step = CYCLE[i % len(CYCLE)]
        if step == "undo":
            status, body = driver.post("/api/games/g1/undo", {})
        elif step == "spin":
            status, body = driver.post("/api/games/g1/commands",
                                       {"type": "spin", "landed": REGULAR[(i // len(CYCLE)) % len(REGULAR)]})
        else:
            status, body = driver.post("/api/games/g1/commands", {"type": step})
        assert status == 200, body
        return body["state"]["rev"]

    def take(i: int) -> int:
        status, body = driver.post(f"/api/rundowns/{rid}/actions", {"action": "take", "item": items[i % 2]})
        assert status == 200, body
        return srv.api("GET", "/api/graphics")["seq"]  # the seq this take made (one driver: no race)

    print(f"# {machine()}  mode={args.mode}  actions={args.n} per row")
    print(f"{'clients':>8} {'kind':>14} {'median ms':>10} {'p99 ms':>8}")
    rows = []
    try:
        for n in args.clients:
            for kind, event, send in (("game command", "state", command), ("rundown take", "graphics", take)):
                ms = measure(srv, n, args.n, event, send)
                row = {"clients": n, "kind": kind, "median_ms": round(statistics.median(ms), 2),
                       "p99_ms": round(pct(ms, 99), 2)}
                rows.append(row)
                print(f"{n:>8} {kind:>14} {row['median_ms']:>10.2f} {row['p99_ms']:>8.2f}", flush=True)
    finally:
        srv.stop()
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
