"""5,000 overlay websockets held by one server process: does every one get every state, how
late is the last one, what does a held connection cost in memory, and does the operator's panel
keep answering meanwhile?

    python bench/held_overlays.py [--clients 5000] [--per-worker 1250] [--commands 200]
                                  [--poll-ms 20] [--mode eventlet] [--max-wait 240 [--quiet 0.3]]

One server (`python -m overlay serve --demo`, tests.support.Server, eventlet) in a temp folder;
it raises its own open-files limit at start and logs the limit in force (the bench prints that
line). This process raises its own limit too; the client workers inherit it.

The clients are bench/clients.py `--kind ts` workers (`--per-worker` each, 4 processes for
5,000): plain sockets joined to `/overlay`, stamped with the kernel's arrival time of each
`state` (SO_TIMESTAMPNS), read every `--poll-ms` ms so that 5,000 readers do not take the CPU the
server needs (docs/PERFORMANCE.md §1). The commands are the demo round's (spin, start_timer,
undo, undo), one at a time, each recorded in SQLite then broadcast; the next 10 ms after every
client has the previous. Reported:

* misses: per command, clients without a receipt of its rev (from every client's receipts);
* last client: from the command's send to the 5,000th client's receipt — median, p99, max;
* memory: server RSS before the clients (after warm-up commands) and with them, the delta per
  held connection (also after the commands, when the buffers have been used);
* the panel while they are held: the command's own HTTP answer (POST with the token), a
  `GET /api/games/g1` sent right after it (during the fan-out's tail, if any) and one between
  commands (idle held connections) — median, p99;
* the server's CPU per command (its idle CPU with the clients held, pings and timers, taken
  off), the cores it got meanwhile and how busy the whole machine was: on a shared machine the
  delays are mostly waits for a core, which these say.
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ClientPool, Server, busy_s, cpu_s, machine, pct, rss_kb, wait_quiet
from latency import Driver, send_cycle
from tests.support import TOKEN


class Panel(Driver):
    """The operator's panel: its API calls over keep-alive HTTP, timed."""

    def get(self, path: str) -> tuple[int, float]:
        t0 = time.perf_counter()
        self.conn.request("GET", path, headers=self.headers)
        r = self.conn.getresponse()
        r.read()
        return r.status, (time.perf_counter() - t0) * 1000


def raise_own_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def figures(v: list[float]) -> dict:
    return {"n": len(v), "median": round(statistics.median(v), 1), "p99": round(pct(v, 99), 1),
            "max": round(max(v), 1)} if v else {"n": 0}


def run(args: argparse.Namespace, tmp: Path) -> dict:
    srv = Server(tmp / "data", mode=args.mode).start()
    try:
        limit_line = next((x for x in srv.output().splitlines() if "open files limit" in x), "(no limit line)")
        print(f"  server pid {srv.proc.pid}: {limit_line.strip()}", file=sys.stderr, flush=True)
        driver, panel = Driver(srv.url, TOKEN), Panel(srv.url, TOKEN)
        for i in range(20):  # warm-up: every code path of a command and a panel GET taken once
            send_cycle(driver, i)
            panel.get("/api/games/g1")
        sent = 20
        time.sleep(1)
        rss0 = rss_kb(srv.proc.pid)
        t_open = time.perf_counter()
        pool = ClientPool(srv.url, args.clients, per_worker=args.per_worker, kind="ts",
                          poll_ms=args.poll_ms, deadline=args.commands * 3 + 900)
        try:
            pool.wait_ready(timeout=600)
            open_s = time.perf_counter() - t_open
            time.sleep(2)
            rss1 = rss_kb(srv.proc.pid)
            print(f"  {args.clients} held after {open_s:.1f} s; RSS {rss0 / 1024:.0f} → {rss1 / 1024:.0f} MB; "
                  f"load {machine().rsplit('load average ', 1)[1]}", file=sys.stderr, flush=True)
            pid = srv.proc.pid
            c0, w0 = cpu_s(pid), time.perf_counter()
            time.sleep(5)  # held and idle: what pings and timers cost
            idle_cores = (cpu_s(pid) - c0) / (time.perf_counter() - w0)
            # fresh keep-alive connections: the server closes one idle for 10 s (HEADER_TIMEOUT)
            driver, panel = Driver(srv.url, TOKEN), Panel(srv.url, TOKEN)
            c0, b0, w0 = cpu_s(pid), busy_s(), time.perf_counter()
            last_ms, cmd_ms, get_busy, get_idle, revs, timeouts = [], [], [], [], [], 0
            for i in range(args.commands):
                t0 = time.perf_counter_ns()
                rev = send_cycle(driver, sent + i)
                cmd_ms.append((time.perf_counter_ns() - t0) / 1e6)
                status, ms = panel.get("/api/games/g1")  # while the fan-out may still be writing
                assert status == 200, status
                get_busy.append(ms)
                revs.append(rev)
                try:
                    last = pool.wait_all(rev, timeout=10)
                    last_ms.append((last - t0) / 1e6)
                except TimeoutError:
                    timeouts += 1
                time.sleep(0.005)
                status, ms = panel.get("/api/games/g1")  # every client has it: the held ones idle
                assert status == 200, status
                get_idle.append(ms)
                time.sleep(0.005)
                if (i + 1) % 50 == 0:
                    print(f"  {i + 1} commands; last client median {statistics.median(last_ms):.1f} ms; "
                          f"load {machine().rsplit('load average ', 1)[1]}", file=sys.stderr, flush=True)
            wall = time.perf_counter() - w0
            server_cpu = cpu_s(pid) - c0
            machine_cores = (busy_s() - b0) / wall
            rss2 = rss_kb(srv.proc.pid)
            receipts = pool.dump(timeout=120)
        finally:
            pool.close()
        misses = {rev: args.clients - len(receipts.get(rev, [])) for rev in revs}
        return {
            "clients": args.clients, "open_s": round(open_s, 1), "commands": args.commands,
            "missed_receipts": sum(misses.values()), "commands_with_misses": sum(1 for m in misses.values() if m),
            "wait_timeouts": timeouts,
            "last_client_ms": figures(last_ms),
            "server_cpu_ms_per_command": round((server_cpu - idle_cores * wall) / args.commands * 1000, 1),
            "server_idle_cores": round(idle_cores, 3),
            "server_cores_while_commands": round(server_cpu / wall, 2),
            "machine_busy_cores_while_commands": round(machine_cores, 2),
            "rss_mb": [round(rss0 / 1024, 1), round(rss1 / 1024, 1), round(rss2 / 1024, 1)],
            "kb_per_connection": round((rss1 - rss0) / args.clients, 1),
            "kb_per_connection_after_commands": round((rss2 - rss0) / args.clients, 1),
            "panel_command_ms": figures(cmd_ms), "panel_get_after_command_ms": figures(get_busy),
            "panel_get_idle_ms": figures(get_idle),
        }
    finally:
        srv.stop()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clients", type=int, default=5000)
    p.add_argument("--per-worker", type=int, default=1250, help="clients per worker process")
    p.add_argument("--commands", type=int, default=200)
    p.add_argument("--poll-ms", type=float, default=20, help="clients read every P ms (0: on arrival)")
    p.add_argument("--mode", choices=("eventlet", "gevent"), default="eventlet")
    p.add_argument("--max-wait", type=float, default=0,
                   help="first wait up to S seconds until other processes use under --quiet cores")
    p.add_argument("--quiet", type=float, default=0.3)
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args()
    limit = raise_own_limit()
    if args.max_wait:
        others = wait_quiet(args.quiet, args.max_wait)
        print(f"  others used {others:.2f} cores over 5 s before the start", file=sys.stderr, flush=True)
    print(f"# {machine()}  mode={args.mode}  bench open-files limit {limit}", file=sys.stderr, flush=True)
    if limit < args.clients + 256:
        print(f"  this process's open-files limit ({limit}) is below the clients it opens", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="chgk-held-overlays-") as tmp:
        result = run(args, Path(tmp))
    result["load_at_end"] = machine().rsplit("load average ", 1)[1]
    print(json.dumps(result, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
