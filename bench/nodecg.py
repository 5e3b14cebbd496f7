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
ratios (chgk ÷ NodeCG) per round and their medians: of the LAST socket's p50 and p99 over the
commands, and of the MEDIAN socket's (the typical client's); the same ratios of every round's
commands pooled; and each server's last socket by the command's place in chgk's cycle (spin,
start_timer, undo, undo: what a patch's content costs the client). "others" is the cores processes not ours
kept busy during the row; `--max-wait` first waits (before each row) until they use under
`--quiet` cores (bench/_common.py's wait_quiet).

`--trace DIR` runs chgk-overlay under bench/traced_serve.py (per-stage stamps of every command on
the client's clock: request in, commit with fsync, frame built, last socket written) and prints
where each command's time went, median per row; `--profile DIR` records chgk-overlay with py-spy
during its rows at the largest client count (collapsed stacks, DIR/chgk-<n>-r<round>.txt).

Never part of the test suite; Node and npm are needed only here.
"""
from __future__ import annotations

import argparse
import bisect
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
from latency import Chgk, profile_report
from tests.support import TOKEN, Server, stop_process, wait_until_up

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


class TracedServer(Server):
    """chgk-overlay under bench/traced_serve.py: the same server, stamping each command's stages."""

    trace: Path = Path("/tmp/chgk-stages.jsonl")

    def start(self, timeout: float = 120) -> "TracedServer":
        cmd = [sys.executable, str(BENCH / "traced_serve.py"), "serve", "--port", str(self.port),
               "--data", str(self.data), "--async-mode", self.mode, "--demo"]
        self.log = open(self.log_path, "ab")
        env = {**self.env, "CHGK_STAGE_TRACE": str(self.trace)}
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        wait_until_up(self.proc, self.url + "/api/time", timeout, output=self.output)
        return self


class TreeServer(Server):
    """chgk-overlay from another work tree (`--base-tree`: e.g. `git archive <commit>` unpacked),
    to compare code before and after a change in the same interleaved rounds."""

    root: Path = Path(".")

    def start(self, timeout: float = 120) -> "TreeServer":
        cmd = [sys.executable, "-m", "overlay", "serve", "--port", str(self.port), "--data", str(self.data),
               "--async-mode", self.mode, "--demo"]
        self.log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(cmd, cwd=self.root, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        wait_until_up(self.proc, self.url + "/api/time", timeout, output=self.output)
        return self


STAGES = (("send→wsgi", None, "wsgi0"), ("wsgi→flask", "wsgi0", "app0"), ("flask→handler", "app0", "req"),
          ("send→handler", None, "req"), ("handler→commit", "req", "commit0"),
          ("commit", "commit0", "commit1"), ("commit→frame", "commit1", "frame"),
          ("frame→last write", "frame", "fan1"), ("send→last write", None, "fan1"),
          ("fsync (after the write)", "sync0", "sync1"),
          ("last write→1st socket", "fan1", "first"), ("→median socket", "fan1", "median"),
          ("→last socket", "fan1", "last"), ("→handler out", "fan1", "resp"))


def stages(trace: Path, r: dict) -> dict[str, float]:
    """Median ms of each stage over the row's timed commands: the server's stamps (trace) matched
    to the client's sends (the first server request that started after each send)."""
    recs = [json.loads(line) for line in trace.read_text().splitlines()] if trace.exists() else []
    recs = [x for x in recs if "req" in x]  # checkpoint stamps are lines of their own
    starts = [x["req"] for x in recs]
    out: dict[str, list[float]] = {name: [] for name, _, _ in STAGES}
    for k, sent in enumerate(r["sent_ns"]):
        i = bisect.bisect_left(starts, sent)
        if i == len(recs) or "fan1" not in recs[i]:
            continue
        x = dict(recs[i])
        for key, ms in (("first", r["first_ms"][k]), ("median", r["median_ms"][k]), ("last", r["latency_ms"][k])):
            x[key] = sent + ms * 1e6
        for name, a, b in STAGES:
            if b in x and (a is None or a in x):
                out[name].append((x[b] - (x[a] if a else sent)) / 1e6)
    return {name: statistics.median(v) for name, v in out.items() if v}


CYCLE_STEPS = ("spin", "start_timer", "undo (timer)", "undo (spin)")


def by_cycle_step(rows: list[dict]) -> dict[str, dict[str, float]]:
    """The timed commands grouped by their place in chgk's cycle (load.js: spin, start_timer, undo,
    undo, from a spin at every row's first command): the patches differ (~1 kB for a spin with its
    question, ~150 bytes for the undo of one), so the groups show what a message's content costs
    the client. NodeCG's commands are all alike: its groups are the control."""
    groups: dict[str, list[tuple[float, float]]] = {name: [] for name in CYCLE_STEPS}
    for r in rows:
        for k, (last, first) in enumerate(zip(r["latency_ms"], r["first_ms"])):
            groups[CYCLE_STEPS[(r["warmup"] + k) % len(CYCLE_STEPS)]].append((last, first))
    return {name: {"p50": statistics.median(x for x, _ in g), "p99": pct([x for x, _ in g], 99),
                   "first_p50": statistics.median(f for _, f in g)} for name, g in groups.items() if g}


def run_row(server, kind: str, n: int, args: argparse.Namespace, client_dir: Path, ours: list[int]) -> dict:
    """One Node load client against one server: connect n sockets, warm up, time the commands.
    `ours`: the pids of our long-running processes (both servers, this driver)."""
    target = "nodecg" if kind == "nodecg" else "chgk"
    cmd = ["node", str(LOAD), "--target", target, "--url", server.url, "--n", str(n),
           "--commands", str(args.commands), "--warmup", str(args.warmup), "--gap-ms", str(args.gap_ms)]
    if target == "chgk":
        # "chgk": the sockets ask for `state_patch` as our overlays (static/lib/client.js) do;
        # "chgk-full": they take the whole `state` after every change, as any other client does;
        # "chgk-base": the same, against the code of --base-tree
        cmd += ["--token", TOKEN, "--patches", "1" if kind == "chgk" else "0"]
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
    med = r["median_ms"]
    r.update(server=kind, wall_s=wall, p50=statistics.median(lat), p99=pct(lat, 99), max=max(lat),
             med_p50=statistics.median(med), med_p99=pct(med, 99), ack_p50=statistics.median(r["ack_ms"]), first_p50=statistics.median(r["first_ms"]), server_cpu_ms=srv_cpu * 1000 / (args.commands + args.warmup),
             others=max(0.0, busy - mine) / wall)
    return r


def fmt_row(rnd: str, r: dict) -> str:
    return (f"{rnd:>5} {r['n']:>7} {r['server']:<9} │ {r['p50']:>7.2f} {r['p99']:>7.2f} {r['max']:>7.2f} │"
            f" {r['med_p50']:>7.2f} {r['med_p99']:>7.2f} │ {r['first_p50']:>7.2f} {r['ack_p50']:>7.2f} │ {r['server_cpu_ms']:>7.2f} {r['client_cpu_ms'] / (r['commands'] + r['warmup']):>7.2f} │"
            f" {r['others']:>6.2f}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clients", nargs="+", type=int, default=[50, 500])
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--commands", type=int, default=200)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--gap-ms", type=float, default=10)
    p.add_argument("--mode", default="eventlet", help="chgk-overlay's async mode")
    p.add_argument("--servers", nargs="+", default=["chgk", "nodecg"], choices=["chgk", "chgk-full", "chgk-base", "nodecg"],
                   help="chgk: our overlays' way (`state_patch`); chgk-full: the whole `state` every time")
    p.add_argument("--install-dir", type=Path, default=None,
                   help="install NodeCG and the client here and keep them (default: a temporary folder)")
    p.add_argument("--quiet", type=float, default=0.3)
    p.add_argument("--max-wait", type=float, default=0, help="wait at most this long for the machine to be quiet")
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--trace", type=Path, default=None, help="stamp chgk-overlay's stages, files here")
    p.add_argument("--profile", type=Path, default=None, help="py-spy chgk-overlay at the largest client count")
    p.add_argument("--base-tree", type=Path, default=None,
                   help="chgk-base: chgk-overlay run from this tree (e.g. an unpacked `git archive` of an older commit)")
    args = p.parse_args()
    for folder in (args.trace, args.profile):
        if folder:
            folder.mkdir(parents=True, exist_ok=True)

    print(f"machine: {machine()}")
    print(f"node {subprocess.run(['node', '--version'], capture_output=True, text=True).stdout.strip()};"
          f" {args.commands} commands after {args.warmup} warm-up, one at a time, {args.gap_ms:g} ms apart;"
          f" chgk-overlay {args.mode}")
    tmp = Path(tempfile.mkdtemp(prefix="chgk-nodecg-"))
    base = args.install_dir.resolve() if args.install_dir else tmp
    results: list[dict] = []
    chgk = ncg = base_srv = None
    try:
        npm_ci(NODE, base / "client")
        if args.trace:
            TracedServer.trace = args.trace / "stages.jsonl"
            TracedServer.trace.unlink(missing_ok=True)
        chgk = Chgk(args.mode, tmp, server=TracedServer if args.trace else Server)
        state = chgk.public_sample()
        print(f"state: {len(json.dumps(state, ensure_ascii=False).encode())} bytes of JSON (chgk's public view)")
        servers = {"chgk": chgk, "chgk-full": chgk}
        if "chgk-base" in args.servers:
            TreeServer.root = args.base_tree.resolve()
            (tmp / "base").mkdir()
            servers["chgk-base"] = base_srv = Chgk(args.mode, tmp / "base", server=TreeServer)
        if "nodecg" in args.servers:
            ncg = NodeCG(base / "nodecg", state).start()
            servers["nodecg"] = ncg
        head = (f"{'round':>5} {'clients':>7} {'server':<9} │ {'p50':>7} {'p99':>7} {'max':>7} │ {'med p50':>7} {'med p99':>7} │ {'1st p50':>7} {'ack p50':>7} │"
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
                    ours = sorted({s.pid for s in servers.values()}) + [os.getpid()]
                    # the server not measured is stopped (SIGSTOP): its clock, timers and collector
                    # take nothing from the row; it keeps its state and continues afterwards
                    for srv in {s.pid for s in servers.values()} - {servers[kind].pid}:
                        os.kill(srv, signal.SIGSTOP)
                    os.kill(servers[kind].pid, signal.SIGCONT)
                    spy = None
                    if args.profile and kind != "nodecg" and n == max(args.clients):
                        spy = subprocess.Popen(
                            ["py-spy", "record", "--pid", str(chgk.pid), "--rate", "250", "--format", "raw",
                             "--output", str(args.profile / f"{kind}-{n}-r{rnd + 1}.txt"), "--nonblocking"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                        time.sleep(1.0)
                    r = run_row(servers[kind], kind, n, args, base / "client", ours)
                    if spy:
                        spy.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
                        spy.wait(60)
                    r["round"] = rnd + 1
                    results.append(r)
                    print(fmt_row(str(rnd + 1), r), flush=True)
                    if args.trace and kind != "nodecg":
                        r["stages_ms"] = stages(TracedServer.trace, r)
                        print("        stages (median ms): " + ", ".join(f"{k} {v:.2f}" for k, v in r["stages_ms"].items()), flush=True)
                    if r["stale"] or r["errors"]:
                        print(f"  ! {r['stale']} stale messages, errors: {r['errors']}")
    finally:
        for srv in (ncg, chgk, base_srv):
            try:
                os.kill(srv.pid, signal.SIGCONT)  # a stopped process would not hear the SIGTERM
            except (AttributeError, ProcessLookupError):
                pass
        if ncg:
            ncg.stop()
        if chgk:
            chgk.stop()
        if base_srv:
            base_srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    print("\nms from sending the HTTP command until the LAST socket holds the new state (p50, p99, max over"
          " the timed commands);\nmed = until the MEDIAN socket has it; 1st = until the first socket has it; ack = the HTTP answer; srv CPU = server CPU ms per command; cli CPU = the"
          " Node client's CPU ms per command;\nothers = cores kept busy by processes not ours during the row")
    summary = []
    for n in args.clients:
        per = {k: [r for r in results if r["n"] == n and r["server"] == k] for k in args.servers}
        line = {"n": n}
        for k, rows in per.items():
            line[k] = {f: statistics.median([r[f] for r in rows]) for f in
                       ("p50", "p99", "max", "med_p50", "med_p99", "ack_p50", "server_cpu_ms", "others")}
        for ours in [k for k in args.servers if k != "nodecg"] if "nodecg" in args.servers else []:
            for f in ("p50", "p99", "med_p50", "med_p99"):
                ratios = [a[f] / b[f] for a, b in zip(per[ours], per["nodecg"])]
                line.setdefault("ratios", {}).setdefault(ours, {})[f] = {"rounds": ratios, "median": statistics.median(ratios)}
            # every timed command of every round in one sample per server: a p99 over rounds × commands
            # rather than the 2nd-slowest of a row's 200, a cross-check of the median of the rounds
            for f, key, q in (("p50", "latency_ms", 50), ("p99", "latency_ms", 99), ("med_p50", "median_ms", 50), ("med_p99", "median_ms", 99)):
                a, b = ([x for r in per[k] for x in r[key]] for k in (ours, "nodecg"))
                line["ratios"][ours][f]["pooled"] = pct(a, q) / pct(b, q)
        summary.append(line)
    print(f"\nmedian over {args.rounds} round(s):")
    for line in summary:
        parts = [f"{k} last p50 {line[k]['p50']:.1f} / p99 {line[k]['p99']:.1f}, median socket p50 {line[k]['med_p50']:.1f}"
                 f" / p99 {line[k]['med_p99']:.1f} ms (srv CPU {line[k]['server_cpu_ms']:.2f}, others {line[k]['others']:.2f})"
                 for k in args.servers]
        print(f"  {line['n']:>4} clients: " + "; ".join(parts))
        for ours, ratios in line.get("ratios", {}).items():
            print(f"        {ours} ÷ NodeCG, median over rounds (per round): " + "; ".join(
                f"{label} {ratios[f]['median']:.2f} ({', '.join(f'{x:.2f}' for x in ratios[f]['rounds'])})"
                for label, f in (("last p50", "p50"), ("last p99", "p99"), ("median-socket p50", "med_p50"),
                                 ("median-socket p99", "med_p99"))))
            print(f"        {ours} ÷ NodeCG, every round's commands pooled: " + "; ".join(
                f"{label} {ratios[f]['pooled']:.2f}" for label, f in (
                    ("last p50", "p50"), ("last p99", "p99"), ("median-socket p50", "med_p50"), ("median-socket p99", "med_p99"))))
    by_step = {}
    for n in args.clients:
        for k in args.servers:
            by_step[f"{k}-{n}"] = steps = by_cycle_step([r for r in results if r["n"] == n and r["server"] == k])
            print(f"  {n:>4} clients, {k}, by the command's place in chgk's cycle (every round pooled; last socket p50 / p99,"
                  " first socket p50): " + "; ".join(f"{name} {v['p50']:.1f} / {v['p99']:.1f}, {v['first_p50']:.1f}"
                                                    for name, v in steps.items()))
    print(f"\nload average at the end: {machine().rsplit('load average ', 1)[1]}")
    if args.profile:
        for f in sorted(args.profile.glob("chgk-*.txt")):
            print("\n" + profile_report(f))
    if args.json:
        args.json.write_text(json.dumps({"machine": machine(), "results": results, "summary": summary, "by_step": by_step},
                                        indent=1))


if __name__ == "__main__":
    main()
