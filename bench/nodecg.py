"""chgk-overlay against NodeCG 2.6.4, with the same Socket.IO client on both.

    python bench/nodecg.py [--clients 50 500] [--rounds 3] [--commands 200] [--warmup 100]
                           [--install-dir DIR] [--max-wait 240 [--quiet 0.3]] [--json FILE]

NodeCG is what a streaming-graphics developer would pick instead of us. This bench installs
`nodecg@2.6.4` from npm (bench/nodecg/bundle/: package.json and package-lock.json, `npm ci`)
into a temporary folder as a project whose own bundle declares one replicant, `state`, holding a
real public state of ours (~2 kB, taken from the chgk server at the start), and mounts
POST /bench/state, which assigns it a new value. NodeCG runs with its defaults (persistent
replicants: saved to its SQLite database after the push, throttled to one write per 100 ms),
login disabled, no other bundle.

The load client is bench/nodecg/load.js: socket.io-client 4.8.4 (bench/nodecg/package-lock.json,
`npm ci` into the same temporary folder), N sockets in one Node process, websocket transport,
`--warmup` commands then `--commands` timed ones, one at a time (the next `--gap-ms` after the
last socket has the previous): the time from sending the HTTP command until the LAST socket
holds the new state. Against chgk-overlay (`python -m overlay serve --demo`, eventlet unless
`--mode`) it connects to `/overlay` and sends the demo round's real commands (spin, start_timer,
undo, undo with the token: each committed to SQLite with fsync before the broadcast); against
NodeCG it speaks NodeCG's replicant protocol (joinRoom, replicant:declare, replicant:operations).

Both servers run for the whole bench; the rows are interleaved — per round and client count
one server then the other, the order alternating — so that both see the same machine. The
server not being measured is stopped (SIGSTOP) meanwhile and continued for its own rows.
`--rounds 3` prints each round and then the median over rounds of every figure, with the
p99 ratio (chgk ÷ NodeCG) per round and its median. "others" is the cores processes not ours
kept busy during the row; `--max-wait` first waits (before each row) until they use under
`--quiet` cores (bench/_common.py's wait_quiet).

Never part of the test suite; Node and npm are needed only here.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import BENCH, busy_s, cpu_s, free_port, machine, pct, wait_quiet
from latency import Chgk
from tests.support import TOKEN, stop_process, wait_until_up

NODE = BENCH / "nodecg"
LOAD = NODE / "load.js"


def npm_ci(src: Path, dest: Path) -> None:
    """`npm ci` of src's package.json + package-lock.json into dest, skipped when dest already
    has node_modules installed from the same lock (--install-dir reuses an installation)."""
    dest.mkdir(parents=True, exist_ok=True)
    lock = (src / "package-lock.json").read_bytes()
    stamp = dest / ".lock-sha256"
    digest = hashlib.sha256(lock).hexdigest()
    if (dest / "node_modules").is_dir() and stamp.exists() and stamp.read_text() == digest:
        return
    for name in ("package.json", "package-lock.json"):
        shutil.copy(src / name, dest / name)
    print(f"npm ci in {dest} …", file=sys.stderr, flush=True)
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel", "error"], cwd=dest, check=True,
                   stdout=subprocess.DEVNULL)
    stamp.write_text(digest)


class NodeCG:
    """NodeCG 2.6.4 with bench/nodecg/bundle/ as its project (and only bundle)."""

    label = "nodecg"

    def __init__(self, folder: Path, state: dict) -> None:
        self.folder = folder
        npm_ci(NODE / "bundle", folder)
        shutil.copy(NODE / "bundle" / "extension.js", folder / "extension.js")
        (folder / "state.json").write_text(json.dumps(state, ensure_ascii=False))
        (folder / "bundles").mkdir(exist_ok=True)
        db = folder / "db"  # a fresh database each run: the replicant starts from the template
        shutil.rmtree(db, ignore_errors=True)
        self.port = free_port()
        (folder / "cfg").mkdir(exist_ok=True)
        (folder / "cfg" / "nodecg.json").write_text(json.dumps({
            "host": "127.0.0.1", "port": self.port, "login": {"enabled": False},
            "bundles": {"enabled": ["chgk-bench-bundle"]},
            "logging": {"console": {"enabled": True, "level": "warn"}}}))
        self.log_path = folder / "nodecg.log"
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "NodeCG":
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(["node", "node_modules/nodecg/index.js"], cwd=self.folder,
                                     stdout=log, stderr=subprocess.STDOUT)
        wait_until_up(self.proc, self.url + "/bench/state", 120, what="NodeCG",
                      output=lambda: self.log_path.read_text(errors="replace")[-3000:])
        return self

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        stop_process(self.proc)


def run_row(server, kind: str, n: int, args: argparse.Namespace, client_dir: Path, ours: list[int]) -> dict:
    """One Node load client against one server: connect n sockets, warm up, time the commands.
    `ours`: the pids of our long-running processes (both servers, this driver)."""
    cmd = ["node", str(LOAD), "--target", kind, "--url", server.url, "--n", str(n),
           "--commands", str(args.commands), "--warmup", str(args.warmup), "--gap-ms", str(args.gap_ms)]
    if kind == "chgk":
        cmd += ["--token", TOKEN]
    env = {**os.environ, "NODE_PATH": str(client_dir / "node_modules")}
    cpu0 = [cpu_s(pid) for pid in ours]
    child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy0, w0 = busy_s(), time.monotonic()
    srv0 = cpu_s(server.pid)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=1800)
    srv_cpu = cpu_s(server.pid) - srv0
    busy, wall = busy_s() - busy0, time.monotonic() - w0
    child1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    mine = sum(b - a for a, b in zip(cpu0, (cpu_s(pid) for pid in ours)))
    mine += (child1.ru_utime - child0.ru_utime) + (child1.ru_stime - child0.ru_stime)  # the Node client
    if proc.returncode != 0:
        raise RuntimeError(f"load client against {kind} failed: {err.strip()[-2000:]}")
    r = json.loads(out.strip().splitlines()[-1])
    lat = r["latency_ms"]
    r.update(server=kind, wall_s=wall, p50=statistics.median(lat), p99=pct(lat, 99), max=max(lat),
             ack_p50=statistics.median(r["ack_ms"]), first_p50=statistics.median(r["first_ms"]), server_cpu_ms=srv_cpu * 1000 / (args.commands + args.warmup),
             others=max(0.0, busy - mine) / wall)
    return r


def fmt_row(rnd: str, r: dict) -> str:
    return (f"{rnd:>5} {r['n']:>7} {r['server']:<7} │ {r['p50']:>7.2f} {r['p99']:>7.2f} {r['max']:>7.2f} │"
            f" {r['first_p50']:>7.2f} {r['ack_p50']:>7.2f} │ {r['server_cpu_ms']:>7.2f} {r['client_cpu_ms'] / (r['commands'] + r['warmup']):>7.2f} │"
            f" {r['others']:>6.2f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", nargs="+", type=int, default=[50, 500])
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--commands", type=int, default=200)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--gap-ms", type=float, default=10)
    p.add_argument("--mode", default="eventlet", help="chgk-overlay's async mode")
    p.add_argument("--servers", nargs="+", default=["chgk", "nodecg"], choices=["chgk", "nodecg"])
    p.add_argument("--install-dir", type=Path, default=None,
                   help="install NodeCG and the client here and keep them (default: a temporary folder)")
    p.add_argument("--quiet", type=float, default=0.3)
    p.add_argument("--max-wait", type=float, default=0, help="wait at most this long for the machine to be quiet")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args()

    print(f"machine: {machine()}")
    print(f"node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()};"
          f" {args.commands} commands after {args.warmup} warm-up, one at a time, {args.gap_ms:g} ms apart;"
          f" chgk-overlay {args.mode}")
    tmp = Path(tempfile.mkdtemp(prefix="chgk-nodecg-"))
    base = args.install_dir.resolve() if args.install_dir else tmp
    results: list[dict] = []
    chgk = ncg = None
    try:
        npm_ci(NODE, base / "client")
        chgk = Chgk(args.mode, tmp)
        state = chgk.public_sample()
        print(f"state: {len(json.dumps(state, ensure_ascii=False).encode())} bytes of JSON (chgk's public view)")
        servers = {"chgk": chgk}
        if "nodecg" in args.servers:
            ncg = NodeCG(base / "nodecg", state).start()
            servers["nodecg"] = ncg
        head = (f"{'round':>5} {'clients':>7} {'server':<7} │ {'p50':>7} {'p99':>7} {'max':>7} │ {'1st p50':>7} {'ack p50':>7} │"
                f" {'srv CPU':>7} {'cli CPU':>7} │ {'others':>6}")
        print(head + "\n" + "─" * len(head), flush=True)
        for rnd in range(args.rounds):
            for j, n in enumerate(args.clients):
                order = list(args.servers)
                if (rnd + j) % 2:
                    order.reverse()
                for kind in order:
                    if args.max_wait:
                        wait_quiet(args.quiet, args.max_wait)
                    ours = [s.pid for s in servers.values()] + [os.getpid()]
                    # the server not measured is stopped (SIGSTOP): its clock, timers and collector
                    # take nothing from the row; it keeps its state and continues afterwards
                    for other, srv in servers.items():
                        os.kill(srv.pid, signal.SIGCONT if other == kind else signal.SIGSTOP)
                    r = run_row(servers[kind], kind, n, args, base / "client", ours)
                    r["round"] = rnd + 1
                    results.append(r)
                    print(fmt_row(str(rnd + 1), r), flush=True)
                    if r["stale"] or r["errors"]:
                        print(f"  ! {r['stale']} stale messages, errors: {r['errors']}")
    finally:
        for srv in (ncg, chgk):
            try:
                os.kill(srv.pid, signal.SIGCONT)  # a stopped process would not hear the SIGTERM
            except (AttributeError, ProcessLookupError):
                pass
        if ncg:
            ncg.stop()
        if chgk:
            chgk.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    print("\nms from sending the HTTP command until the LAST socket holds the new state (p50, p99, max over"
          " the timed commands);\n1st = until the first socket has it; ack = the HTTP answer; srv CPU = server CPU ms per command; cli CPU = the"
          " Node client's CPU ms per command;\nothers = cores kept busy by processes not ours during the row")
    summary = []
    for n in args.clients:
        per = {k: [r for r in results if r["n"] == n and r["server"] == k] for k in args.servers}
        line = {"n": n}
        for k, rows in per.items():
            line[k] = {f: statistics.median([r[f] for r in rows]) for f in ("p50", "p99", "max", "ack_p50", "server_cpu_ms", "others")}
        if len(args.servers) == 2:
            ratios = [a["p99"] / b["p99"] for a, b in zip(per["chgk"], per["nodecg"])]
            line["p99_ratios"] = ratios
            line["p99_ratio_median"] = statistics.median(ratios)
            line["p50_ratio_median"] = statistics.median([a["p50"] / b["p50"] for a, b in zip(per["chgk"], per["nodecg"])])
        summary.append(line)
    print(f"\nmedian over {args.rounds} round(s):")
    for line in summary:
        parts = [f"{k} p50 {line[k]['p50']:.1f} / p99 {line[k]['p99']:.1f} ms (srv CPU {line[k]['server_cpu_ms']:.2f},"
                 f" others {line[k]['others']:.2f})" for k in args.servers]
        ratio = (f"; p99 chgk÷NodeCG {line['p99_ratio_median']:.2f} (rounds: "
                 f"{', '.join(f'{x:.2f}' for x in line['p99_ratios'])}), p50 {line['p50_ratio_median']:.2f}"
                 if "p99_ratios" in line else "")
        print(f"  {line['n']:>4} clients: " + "; ".join(parts) + ratio)
    print(f"\nload average at the end: {machine().rsplit('load average ', 1)[1]}")
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "results": results, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
