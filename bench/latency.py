"""Command → `state` at every /overlay client, against a bare python-socketio baseline.

    python bench/latency.py [--modes eventlet threading gevent] [--clients 1 50 500]
                            [--client sio|raw|ts [--poll-ms P]] [--commands 300] [--burst 300]
                            [--max-wait 240 [--quiet 0.25]] [--profile DIR] [--json FILE] [--redis]

For each async mode and each client count it starts, one after the other on this machine:

* **chgk**: `python -m overlay serve --demo` (tests.support.Server), driven over keep-alive HTTP
  with real commands (spin, start_timer, undo, undo, … on the demo game: every one is recorded in
  SQLite with synchronous=FULL, then broadcast);
* **bare**: bench/bare_server.py, the same async mode and WSGI server, re-broadcasting a public
  state of the same size that it is POSTed.

The clients run in separate processes (bench/clients.py, ≤ 250 per process): python-socketio
`AsyncClient`s by default (`--client sio`, aiohttp, websocket transport), a minimal aiohttp client
(`raw`), or plain sockets whose receipts are the kernel's arrival timestamps (`ts`: the server
alone, whatever the clients' own CPU). Per command we stamp the send and each client's receipt
(CLOCK_MONOTONIC, shared by the processes) and report, over the commands:

* last client: when the LAST client had the new rev — median and p99;
* median client: when half of the clients had it — median and p99;
* throughput: a burst of commands sent back to back (each waits only for its HTTP answer),
  commands per second until every client holds the last rev;
* server CPU per command (its idle clock task subtracted), client CPU per message;
* server RSS idle (before any client) and with the clients connected;
* "others": cores that processes not ours kept busy during the row. `--max-wait S` first waits
  (at most S seconds, before each client count) until others use under `--quiet` cores.

Latency commands are sent one at a time: the next one 10 ms after every client has the previous.
`--profile DIR` records the chgk server with py-spy during the largest client count (collapsed
stacks, `DIR/<mode>-<server>-<n>.txt`) and prints where its time goes (py-spy needs ptrace
rights: root, or kernel.yama.ptrace_scope=0).
"""
from __future__ import annotations

import argparse
import gc
import http.client
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

from _common import BareServer, ClientPool, Server, busy_s, cpu_s, machine, pct, rss_kb, wait_quiet
from tests.support import TOKEN, Redis  # importable once _common has put the project on the path

REGULAR = [1, 2, 3, 4, 6, 7, 8, 10, 11, 12]  # the demo game's single-question sectors
CYCLE = ["spin", "start_timer", "undo", "undo"]


def send_cycle(driver: "Driver", i: int) -> int:
    """Command `i` of the endless demo round (spin, start, undo, undo) on g1; returns the new rev."""
    step = CYCLE[i % len(CYCLE)]
    if step == "undo":
        status, body = driver.post("/api/games/g1/undo", {})
    elif step == "spin":
        landed = REGULAR[(i // len(CYCLE)) % len(REGULAR)]
        status, body = driver.post("/api/games/g1/commands", {"type": "spin", "landed": landed})
    else:
        status, body = driver.post("/api/games/g1/commands", {"type": step})
    if status != 200:
        raise RuntimeError(f"{step} refused: {status} {str(body)[:300]}")
    return body["state"]["rev"]


class Driver:
    """Keep-alive HTTP/1.1 with the standard library. `requests` adds ~1.5 ms per call on this
    machine and, about once in a hundred calls, 10 – 25 ms (measured against the bare server with
    no clients: http.client p99 6 ms, requests p99 14 ms) — the driver's time, not the server's."""

    def __init__(self, url: str, token: str | None = None) -> None:
        host, port = url.split("//", 1)[1].split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.headers = {"Content-Type": "application/json",
                        **({"Authorization": f"Bearer {token}"} if token else {})}

    def post(self, path: str, body: dict) -> tuple[int, dict]:
        self.conn.request("POST", path, json.dumps(body), self.headers)
        r = self.conn.getresponse()
        return r.status, json.loads(r.read())


class Target:
    """A server process under test (`srv`) and the driver that sends it commands."""

    label = ""

    def __init__(self, mode: str, srv, token: str | None = None) -> None:
        self.srv, self.mode = srv, mode
        self.driver = Driver(srv.url, token)

    @property
    def url(self) -> str:
        return self.srv.url

    @property
    def pid(self) -> int:
        return self.srv.proc.pid

    def stop(self) -> None:
        self.srv.stop()


class Chgk(Target):
    """Our server and the command it is driven with."""

    label = "chgk"

    def __init__(self, mode: str, tmp: Path, redis: str | None = None, server: type = Server) -> None:
        super().__init__(mode, server(tmp / f"data-{mode}", mode=mode, redis=redis).start(), TOKEN)
        self.i = 0

    def send(self) -> int:
        self.i += 1
        return send_cycle(self.driver, self.i - 1)

    def public_sample(self) -> dict:
        """A public state with a round and a running timer: what the baseline re-broadcasts."""
        while CYCLE[self.i % len(CYCLE)] != "undo":
            self.send()
        state = self.srv.call("GET", "/api/games/g1/public").json()
        while CYCLE[self.i % len(CYCLE)] == "undo":
            self.send()
        return state


class Bare(Target):
    """The bare python-socketio baseline, re-broadcasting `payload` with a new rev each time."""

    label = "bare"

    def __init__(self, mode: str, payload: dict) -> None:
        super().__init__(mode, BareServer(mode).start())
        self.payload = dict(payload)
        self.rev = 0

    def send(self) -> int:
        self.rev += 1
        self.payload["rev"] = self.rev
        return self.driver.post("/emit", self.payload)[1]["rev"]


def run(target, n: int, commands: int, burst: int, gap: float, profile: Path | None, kind: str,
        poll_ms: float = 0) -> dict:
    idle_kb = rss_kb(target.pid)
    c0, w0 = cpu_s(target.pid), time.monotonic()
    time.sleep(2.0)
    idle_cpu = (cpu_s(target.pid) - c0) / (time.monotonic() - w0)  # the clock task, at rest
    pool = ClientPool(target.url, n, initial_state=target.label == "chgk", kind=kind,
                      poll_ms=poll_ms)
    try:
        pool.wait_ready()
        for _ in range(20):  # warm-up: code paths, SQLite pages, every client's socket
            pool.wait_all(target.send())
        spy = None
        if profile:
            out = profile / f"{target.mode}-{target.label}-{n}.txt"
            spy = subprocess.Popen(["py-spy", "record", "--pid", str(target.pid), "--rate", "250",
                                    "--format", "raw", "--output", str(out), "--duration", "600", "--nonblocking"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(1.0)
        sent: dict[int, int] = {}
        acks: list[float] = []
        gc.collect()
        gc.disable()  # a pause of the driver's own collector between stamp and send is not the server's
        ours = [target.pid, *pool.pids, os.getpid()]
        cpu0 = [cpu_s(pid) for pid in ours]
        busy0, w0 = busy_s(), time.monotonic()
        for _ in range(commands):
            t0 = time.perf_counter_ns()
            rev = target.send()
            acks.append((time.perf_counter_ns() - t0) / 1e6)
            sent[rev] = t0
            pool.wait_all(rev)
            time.sleep(gap)
        cpu1 = [cpu_s(pid) for pid in ours]
        gc.enable()
        wall = time.monotonic() - w0
        # the machine's busy time less our own processes': what the others took meanwhile
        others = max(0.0, (busy_s() - busy0) - sum(b - a for a, b in zip(cpu0, cpu1))) / wall
        cpu1[0] -= idle_cpu * wall
        if spy:
            spy.send_signal(2)
            spy.wait(60)
        t_first = time.perf_counter_ns()
        last = 0
        for _ in range(burst):
            last = target.send()
        try:
            t_last = pool.wait_all(last, timeout=120)
            throughput = burst / ((t_last - t_first) / 1e9)
        except TimeoutError:
            throughput = float("nan")  # some client never got the last rev: dropped by the server
        clients_kb = rss_kb(target.pid)
        receipts = pool.dump()
    finally:
        pool.close()
    missing = n - len(receipts.get(last, []))
    last_ms = [(max(receipts[r]) - t0) / 1e6 for r, t0 in sent.items()]
    median_ms = [(statistics.median(receipts[r]) - t0) / 1e6 for r, t0 in sent.items()]
    return {"n": n, "last_median": statistics.median(last_ms), "last_p99": pct(last_ms, 99),
            "last_max": max(last_ms), "median_median": statistics.median(median_ms),
            "median_p99": pct(median_ms, 99), "ack_median": statistics.median(acks),
            "server_cpu_ms": (cpu1[0] - cpu0[0]) * 1000 / commands,
            "client_cpu_us": sum(b - a for a, b in zip(cpu0[1:-1], cpu1[1:-1])) * 1e6 / (commands * n),
            "others_cores": others,
            "last_ms": [round(x, 3) for x in last_ms],  # per command, in the order sent
            "idle_cpu_pct": 100 * idle_cpu, "throughput": throughput, "missing": missing, "rss_idle_kb": idle_kb, "rss_clients_kb": clients_kb}


def profile_report(path: Path, top: int = 25) -> str:
    """Inclusive share of samples per function in py-spy's collapsed stacks."""
    if not path.exists():
        return f"(no profile at {path})"
    inclusive: Counter[str] = Counter()
    total = 0
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        total += int(count)
        for frame in set(stack.split(";")):
            inclusive[frame] += int(count)
    lines = [f"  {100 * c / total:5.1f}%  {f}" for f, c in inclusive.most_common(top)]
    return f"{path.name}: {total} samples\n" + "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--modes", nargs="+", default=["eventlet", "threading", "gevent"])
    p.add_argument("--clients", nargs="+", type=int, default=[1, 50, 500])
    p.add_argument("--commands", type=int, default=300, help="latency samples per run")
    p.add_argument("--burst", type=int, default=300, help="commands in the throughput burst")
    p.add_argument("--client", choices=("sio", "raw", "ts"), default="sio",
                   help="sio: python-socketio AsyncClient; raw: minimal aiohttp websocket client;"
                        " ts: plain sockets stamped by the kernel on arrival (see bench/clients.py)")
    p.add_argument("--poll-ms", type=float, default=0,
                   help="ts clients read every P ms instead of waking on each message (bench/clients.py)")
    p.add_argument("--gap-ms", type=float, default=10)
    p.add_argument("--servers", nargs="+", default=["chgk", "bare"], choices=["chgk", "bare"])
    p.add_argument("--profile", type=Path, default=None, help="py-spy the largest client count here")
    p.add_argument("--json", type=Path, default=None, help="also write the figures here")
    p.add_argument("--quiet", type=float, default=0.25,
                   help="before each client count, wait until other processes use fewer cores than this")
    p.add_argument("--max-wait", type=float, default=0, help="…for at most this many seconds (0: don't wait)")
    p.add_argument("--redis", action="store_true",
                   help="chgk as a writer: a redis-server of its own, every change also published (serve --redis)")
    args = p.parse_args()
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    print(f"machine: {machine()}")
    print(f"clients: {args.client}{f' (reading every {args.poll_ms:g} ms)' if args.poll_ms else ''}; latency: {args.commands} commands one at a time;"
          f" throughput: a burst of {args.burst}\n")
    head = (f"{'mode':<9} {'server':<5} {'clients':>7} │ {'last med':>8} {'last p99':>8} {'last max':>8} │"
            f" {'med med':>7} {'med p99':>7} │ {'ack med':>7} │ {'srv CPU':>7} {'cli CPU':>7} │ {'cmd/s':>7} │ {'RSS idle':>8} {'RSS n':>8} │ {'others':>6}")
    print(head + "\n" + "─" * len(head), flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="chgk-bench-") as tmp:
        redis = Redis(Path(tmp) / "redis").start() if args.redis else None
        for mode in args.modes:
            payload = None
            for n in args.clients:
                if args.max_wait:
                    wait_quiet(args.quiet, args.max_wait)
                for kind in args.servers:
                    if kind == "chgk":
                        target = Chgk(mode, Path(tmp), redis.url if redis else None)
                        if payload is None:
                            payload = target.public_sample()
                    else:
                        if payload is None:  # bare alone: borrow a state from a short-lived chgk
                            probe = Chgk(mode, Path(tmp))
                            payload = probe.public_sample()
                            probe.stop()
                        target = Bare(mode, payload)
                    prof = args.profile if args.profile and n == max(args.clients) else None
                    try:
                        r = run(target, n, args.commands, args.burst, args.gap_ms / 1000, prof, args.client,
                                args.poll_ms)
                    except (TimeoutError, RuntimeError) as exc:
                        print(f"{mode:<9} {kind:<5} {n:>7} │ FAILED: {exc}", flush=True)
                        continue
                    finally:
                        target.stop()
                    r.update(mode=mode, server=kind, load=Path("/proc/loadavg").read_text().split()[0])
                    results.append(r)
                    print(f"{mode:<9} {kind:<5} {n:>7} │ {r['last_median']:>8.2f} {r['last_p99']:>8.2f}"
                          f" {r['last_max']:>8.2f} │ {r['median_median']:>7.2f} {r['median_p99']:>7.2f} │"
                          f" {r['ack_median']:>7.2f} │ {r['server_cpu_ms']:>7.2f} {r['client_cpu_us']:>7.0f} │"
                          f" {r['throughput']:>7.0f} │"
                          f" {r['rss_idle_kb'] / 1024:>6.1f}MB {r['rss_clients_kb'] / 1024:>6.1f}MB │"
                          f" {r['others_cores']:>6.2f}", flush=True)
                    if r["missing"]:
                        print(f"  {r['missing']} of {n} clients never got the burst's last rev (dropped)")
        if redis:
            redis.stop()
    print("\ntimes in ms; last = the last client has the new rev, med = the median client has it;"
          " ack = HTTP answer to the driver;\nsrv CPU = server CPU ms per command, cli CPU = client-process"
          " CPU µs per message received (latency phase);\nothers = cores kept busy by processes"
          " not ours during the latency phase (other load on the machine)")
    by = {(r["mode"], r["server"], r["n"]): r for r in results}
    ratios = []
    for (mode, kind, n), r in by.items():
        bare = by.get((mode, "bare", n))
        if kind == "chgk" and bare:
            ratios.append(f"{mode:<9} {n:>4} clients: last-client p99 ×{r['last_p99'] / bare['last_p99']:.2f},"
                          f" median ×{r['last_median'] / bare['last_median']:.2f},"
                          f" throughput ×{bare['throughput'] / r['throughput']:.2f} (bare/chgk)")
    if ratios:
        print("\noverhead (chgk / bare):\n" + "\n".join(ratios))
    print(f"\nload average at the end: {machine().rsplit('load average ', 1)[1]}")
    if args.profile:
        for f in sorted(args.profile.glob("*.txt")):
            print("\n" + profile_report(f))
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "results": results}, indent=1))


if __name__ == "__main__":
    main()
