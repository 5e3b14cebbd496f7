"""Where one command's time goes inside our server, without the network fan-out.

    python bench/command_cost.py [--commands 400] [--profile]

Builds the real app in this process (create_app, threading mode, the demo game on air, no
socket clients), then times, per command (spin, start_timer, undo, undo, … as bench/latency.py):

* the whole HTTP path through Flask's test client (routing, auth, JSON, execute, broadcast);
* its parts, called directly: `Store.append` with synchronous=FULL (the product's setting) and
  NORMAL, `Sessions.execute`/`undo` with no listeners, the public view, the operator view
  (`Services.operator_state`: view + undo preview + allowed moves) and their JSON encoding.

`--profile` adds a pyinstrument profile of the HTTP path (pip install pyinstrument).
Medians in µs; the machine line says how loaded the machine was.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from _common import machine

TOKEN = "bench-token"
REGULAR = [1, 2, 3, 4, 6, 7, 8, 10, 11, 12]


def commands(n: int):
    """The latency bench's cycle: (path, body) pairs that are always legal in this order."""
    for i in range(n):
        step = i % 4
        if step == 0:
            yield "commands", {"type": "spin", "landed": REGULAR[(i // 4) % len(REGULAR)]}
        elif step == 1:
            yield "commands", {"type": "start_timer"}
        else:
            yield "undo", {}


def timed(fn, *args, **kw) -> tuple[float, object]:
    t0 = time.perf_counter_ns()
    out = fn(*args, **kw)
    return (time.perf_counter_ns() - t0) / 1000, out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--commands", type=int, default=400)
    p.add_argument("--profile", action="store_true")
    args = p.parse_args()
    from overlay import create_app
    from overlay.demo import load_demo
    from overlay.core.store import Store

    print(f"machine: {machine()}\n")
    with tempfile.TemporaryDirectory(prefix="chgk-cost-") as tmp:
        app = create_app({"DATA": str(Path(tmp) / "data"), "ASYNC_MODE": "threading", "TOKEN": TOKEN})
        game = load_demo(app)
        svc = app.extensions["chgk"]
        client = app.test_client()
        headers = {"Authorization": f"Bearer {TOKEN}"}

        def http_path(n: int) -> list[float]:
            out = []
            for path, body in commands(n):
                us, r = timed(client.post, f"/api/games/{game}/{path}", json=body, headers=headers)
                assert r.status_code == 200, r.get_data(as_text=True)
                out.append(us)
            return out

        http_path(40)  # warm-up
        rows: list[tuple[str, list[float]]] = [("HTTP command, whole path (test client)", http_path(args.commands))]

        live = svc.sessions.get(game)
        with app.app_context():
            svc.sessions.execute(game, {"type": "spin", "landed": 3})
            svc.sessions.execute(game, {"type": "start_timer"})
            now = svc.sessions.clock()
            rows.append(("public view (round + running timer)",
                         [timed(live.public, now)[0] for _ in range(args.commands)]))
            rows.append(("operator view: operator_state (view, undo preview, moves)",
                         [timed(svc.operator_state, live)[0] for _ in range(args.commands)]))
            rows.append(("  of which allowed_moves",
                         [timed(_moves, live.game, now)[0] for _ in range(args.commands)]))
            rows.append(("  of which undo_preview",
                         [timed(svc.sessions.undo_preview, live)[0] for _ in range(args.commands)]))
            pub, op = live.public(now), svc.operator_state(live)
            rows.append(("JSON encode public view", [timed(json.dumps, pub)[0] for _ in range(args.commands)]))
            rows.append(("JSON encode operator view", [timed(json.dumps, op)[0] for _ in range(args.commands)]))
            svc.sessions.undo(game)
            svc.sessions.undo(game)

        listeners, svc.sessions.listeners = svc.sessions.listeners, []
        bare = []
        for path, body in commands(args.commands):
            fn = svc.sessions.execute if path == "commands" else svc.sessions.undo
            bare.append(timed(fn, game, body)[0])
        svc.sessions.listeners = listeners
        rows.append(("Sessions.execute/undo, no listeners (rules + SQLite)", bare))

        for sync in ("FULL", "NORMAL"):
            store = Store(Path(tmp) / f"append-{sync}.sqlite3", sync)
            gid = store.create_game({"rules": "tv"}, 0)
            event = {"type": "timer_started", "kind": "minute", "ends_at": 1, "duration_ms": 60000}
            rows.append((f"Store.append, one event, synchronous={sync}",
                         [timed(store.append, gid, [event], at=i, auto=False, rev=i, journal_kind="command",
                                journal_body={"type": "start_timer"})[0] for i in range(args.commands)]))
            store.close()

        width = max(len(name) for name, _ in rows)
        print(f"{'':<{width}}  {'median µs':>10} {'p99 µs':>9}")
        for name, samples in rows:
            s = sorted(samples)
            print(f"{name:<{width}}  {statistics.median(s):>10.0f} {s[int(0.99 * (len(s) - 1))]:>9.0f}")

        if args.profile:
            from pyinstrument import Profiler
            profiler = Profiler(interval=0.0002)
            profiler.start()
            http_path(args.commands)
            profiler.stop()
            print("\n" + profiler.output_text(unicode=True, color=False, show_all=False))


def _moves(game, now):
    from overlay.rules.game import allowed_moves
    return allowed_moves(game, now)


if __name__ == "__main__":
    main()
