"""Memory and replay: server RSS idle and with many /overlay clients; replaying a long log.

    python bench/memory.py [--modes eventlet threading gevent] [--clients 500] [--events 10000]
                           [--only rss|replay]

rss: for each async mode, `python -m overlay serve --demo` in a child process; VmRSS from
/proc/<pid>/status once idle, with `--clients` clients connected (bench/clients.py workers,
`--client raw` by default: the server holds the same per-connection state for either kind),
and after 50 commands have been broadcast to them.

replay: in this process, a tv game played through `overlay.core.session.Sessions` on a real
`overlay.core.store.Store` until its log holds `--events` events (rounds on every single-question
sector, each kept open for a long run of pause/resume pairs, then judged), then the time of
`Sessions(store, clock)` — loading and replaying every game in the data folder, what a server
restart does — split into reading the log (SQL + JSON) and folding it, and the time of one
`undo` at that log length (undo drops the last batch and replays the whole log).
"""
from __future__ import annotations

import argparse
import itertools
import statistics
import tempfile
import time
from pathlib import Path

from _common import ClientPool, Server, machine, rss_kb

SINGLE = [1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13]


def rss(modes: list[str], n: int, kind: str) -> None:
    print(f"{'mode':<9} {'idle':>9} {f'{n} clients':>12} {'+50 commands':>13} {'per client':>11}")
    with tempfile.TemporaryDirectory(prefix="chgk-mem-") as tmp:
        for mode in modes:
            srv = Server(Path(tmp) / f"data-{mode}", mode=mode).start()
            try:
                time.sleep(3)
                idle = rss_kb(srv.proc.pid)
                pool = ClientPool(srv.url, n, kind=kind)
                try:
                    pool.wait_ready()
                    time.sleep(3)
                    connected = rss_kb(srv.proc.pid)
                    for i in range(50):
                        body = {"type": "spin", "landed": SINGLE[i // 2 % 10]} if i % 2 == 0 else None
                        r = (srv.command("g1", **body) if body else srv.call("POST", "/api/games/g1/undo", {}))
                        pool.wait_all(r.json()["state"]["rev"])
                    time.sleep(1)
                    busy = rss_kb(srv.proc.pid)
                finally:
                    pool.close()
            finally:
                srv.stop()
            print(f"{mode:<9} {idle / 1024:>7.1f}MB {connected / 1024:>10.1f}MB {busy / 1024:>11.1f}MB"
                  f" {(busy - idle) / n:>8.0f} kB", flush=True)


def build_log(path: Path, target: int) -> tuple[int, int, int]:
    """Plays one long tv game into a fresh store; returns (events, commands, the clock's last
    reading: later runs keep their clock there, so the open round's timer never runs out)."""
    from overlay.core.session import Sessions
    from overlay.core.store import Store
    from overlay.demo import DEMO_SPEC

    store = Store(path, "OFF")  # building is setup, not the measurement: skip the fsyncs
    tick = itertools.count(1_700_000_000_000, 7)
    sessions = Sessions(store, clock=lambda: next(tick))
    game = sessions.create(DEMO_SPEC, source="bench").id
    rounds = 10  # a game to 6 ends after 6 to 11 rounds: keep to 10, alternating verdicts
    pairs = max(0, (target - 8 * rounds) // (2 * rounds))  # a round's spin, start and verdict: ≤ 8 events
    commands = 1
    for r in range(rounds):
        sessions.execute(game, {"type": "spin", "landed": SINGLE[r]})
        sessions.execute(game, {"type": "start_timer"})
        commands += 2
        for _ in range(pairs):
            sessions.execute(game, {"type": "pause_timer"})
            sessions.execute(game, {"type": "resume_timer"})
            commands += 2
        sessions.execute(game, {"type": "judge", "correct": r % 2 == 0})
        commands += 1
    live = sessions.games[game]
    while len(live.log) < target or live.log[-1][2]["type"] not in ("timer_paused", "timer_resumed"):
        # top up inside an open round, and end on a pause or resume: replay() undoes and redoes it
        if live.game.round is None or live.game.round.phase == "closed":
            sessions.execute(game, {"type": "spin", "landed": SINGLE[rounds]})
            sessions.execute(game, {"type": "start_timer"})
            commands += 1
        else:
            step = "resume_timer" if not live.game.timer.running else "pause_timer"
            sessions.execute(game, {"type": step})
        commands += 1
    events = len(live.log)
    store.close()
    return events, commands, next(tick)


def replay(target: int, repeat: int) -> None:
    from overlay.rules import new_game, replay as fold
    from overlay.core.session import Sessions
    from overlay.core.store import Store

    with tempfile.TemporaryDirectory(prefix="chgk-replay-") as tmp:
        path = Path(tmp) / "chgk.sqlite3"
        t0 = time.perf_counter()
        events, commands, now = build_log(path, target)
        print(f"built: {events} events from {commands} commands in {time.perf_counter() - t0:.1f} s "
              f"({path.stat().st_size / 1e6:.1f} MB + WAL)")
        load, read, folding, undo, command, preview, append_head = [], [], [], [], [], [], []
        for _ in range(repeat):
            store = Store(path)  # the product's settings (WAL, synchronous=FULL)
            t0 = time.perf_counter()
            sessions = Sessions(store, clock=lambda: now)
            load.append(time.perf_counter() - t0)
            (game_id, spec, _, _), = store.games()
            t0 = time.perf_counter()
            rows = store.log(game_id)
            read.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            fold(new_game(game_id, spec), (row["event"] for row in rows))
            folding.append(time.perf_counter() - t0)
            # undo the last command (a pause or resume), then put it back, so every repeat is alike
            live = sessions.get(game_id)
            last = live.log[-1][2]["type"]
            t0 = time.perf_counter()
            sessions.undo(game_id)
            undo.append(time.perf_counter() - t0)
            sessions.execute(game_id, {"type": "pause_timer" if last == "timer_paused" else "resume_timer"})
            for _ in range(10):  # what every further command costs at this length
                step = "resume_timer" if live.log[-1][2]["type"] == "timer_paused" else "pause_timer"
                t0 = time.perf_counter()
                sessions.execute(game_id, {"type": step})
                command.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                sessions.undo_preview(live)
                preview.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                store.query("SELECT seq, batch FROM events WHERE game_id=? ORDER BY seq DESC LIMIT 1",
                            (game_id,))  # the query Store.append starts with
                append_head.append(time.perf_counter() - t0)
            for _ in range(10):  # and back to the length we started with
                sessions.undo(game_id)
            store.close()
        ms = lambda xs: f"{1000 * statistics.median(xs):7.2f} ms (min {1000 * min(xs):.2f})"  # noqa: E731
        print(f"Sessions(store, clock), i.e. _load + replay: {ms(load)}")
        print(f"  reading the log (SQL + JSON):              {ms(read)}")
        print(f"  folding the events (rules.replay):         {ms(folding)}")
        print(f"undo at this log length (drop + full replay): {ms(undo)}")
        print(f"one command at this log length (Sessions.execute, no listeners, synchronous=FULL): {ms(command)}")
        print(f"  of which Store.append's last-row query:        {ms(append_head)}")
        print(f"Sessions.undo_preview (twice per command via operator_state): {ms(preview)}")
        print(f"medians of {repeat} runs")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modes", nargs="+", default=["eventlet", "threading", "gevent"])
    p.add_argument("--clients", type=int, default=500)
    p.add_argument("--client", choices=("sio", "raw", "ts"), default="raw")
    p.add_argument("--events", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only", choices=("rss", "replay"), default=None)
    args = p.parse_args()
    print(f"machine: {machine()}\n")
    if args.only != "replay":
        rss(args.modes, args.clients, args.client)
        print()
    if args.only != "rss":
        replay(args.events, args.repeat)


if __name__ == "__main__":
    main()
