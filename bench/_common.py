"""Shared by the benches: statistics, the machine line, a load gate, RSS, the baseline server
process and the pool of client processes. Everything runs on loopback and stops by itself."""
from __future__ import annotations

import json
import math
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
# The benches measure servers started as operators start them (`python -m overlay`), not forked
# from the tests' zygote (tests/zygote.py): its memory and start are not a real start's.
os.environ.setdefault("CHGK_TEST_FORK", "0")
from tests.support import Server, free_port, stop_process, wait_until_up  # noqa: E402

__all__ = ["BENCH", "ROOT", "Server", "free_port", "pct", "summary", "machine", "load", "wait_quiet",
           "rss_kb", "cpu_s", "busy_s", "BareServer", "ClientPool", "recorded_tv_game"]


# figures ------------------------------------------------------------------------------------------

def pct(samples: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(samples)
    return s[max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))]


def summary(samples: list[float]) -> dict[str, float]:
    return {"n": len(samples), "median": statistics.median(samples), "p99": pct(samples, 99),
            "max": max(samples)}


# the machine --------------------------------------------------------------------------------------

def load() -> tuple[float, float, float]:
    one, five, fifteen = Path("/proc/loadavg").read_text().split()[:3]
    return float(one), float(five), float(fifteen)


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "?")
    return (f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
            f"load average {' '.join(f'{x:.2f}' for x in load())}")


def busy_s() -> float:
    """CPU seconds the whole machine has spent busy (all cores), from /proc/stat."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def wait_quiet(threshold: float, max_wait: float, window: float = 5.0) -> float:
    """Waits until the machine, with none of our processes running, is busy for less than
    `threshold` cores over a `window` (other engineers' test suites share it), for at most
    `max_wait` seconds; returns the last busy figure in cores."""
    deadline = time.monotonic() + max_wait
    while True:
        b0, w0 = busy_s(), time.monotonic()
        time.sleep(window)
        other = (busy_s() - b0) / (time.monotonic() - w0)
        if other < threshold or time.monotonic() >= deadline:
            return other
        print(f"  others keep {other:.2f} cores busy: waiting…", file=sys.stderr, flush=True)


def cpu_s(pid: int) -> float:
    """User + system CPU seconds a process (all its threads) has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


# the baseline server --------------------------------------------------------------------------------

class BareServer:
    """bench/bare_server.py in a child process."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.http = requests.Session()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20) -> "BareServer":
        self.proc = subprocess.Popen([sys.executable, str(BENCH / "bare_server.py"), "--mode", self.mode,
                                      "--port", str(self.port)], cwd=ROOT, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        wait_until_up(self.proc, self.url + "/", timeout, what="bare server")
        return self

    def emit(self, payload: dict) -> int:
        return self.http.post(self.url + "/emit", json=payload, timeout=10).json()["rev"]

    def stop(self) -> None:
        stop_process(self.proc)
        self.http.close()


# the clients ------------------------------------------------------------------------------------------

class ClientPool:
    """`n` /overlay clients spread over worker processes (bench/clients.py), at most `per_worker`
    clients each, so that the client side does not share one interpreter with the driver."""

    def __init__(self, url: str, n: int, *, per_worker: int = 250, initial_state: bool = True,
                 kind: str = "sio", deadline: float = 600, poll_ms: float = 0, event: str = "state") -> None:
        self.n = n
        sizes = [n // math.ceil(n / per_worker)] * math.ceil(n / per_worker)
        for i in range(n - sum(sizes)):
            sizes[i] += 1
        self.cond = threading.Condition()
        self.all_rev = [-1] * len(sizes)        # per worker: newest rev all its clients hold
        self.all_ns = [dict() for _ in sizes]   # per worker: rev → when its last client got it
        self.ready = [False] * len(sizes)
        self.dumps: list[dict | None] = [None] * len(sizes)
        self.procs = []
        for size in sizes:
            cmd = [sys.executable, str(BENCH / "clients.py"), "--url", url, "--n", str(size),
                   "--kind", kind, "--deadline", str(deadline), "--poll-ms", str(poll_ms), "--event", event] + (["--initial-state"] if initial_state else [])
            self.procs.append(subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               stderr=subprocess.DEVNULL, text=True, bufsize=1))
        for i, proc in enumerate(self.procs):
            threading.Thread(target=self._read, args=(i, proc), daemon=True).start()

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def _read(self, i: int, proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            kind, _, rest = line.rstrip("\n").partition(" ")
            with self.cond:
                if kind == "ready":
                    self.ready[i] = True
                elif kind == "all":
                    rev, ns = map(int, rest.split())
                    self.all_rev[i] = max(self.all_rev[i], rev)
                    self.all_ns[i][rev] = ns
                elif kind == "dump":
                    self.dumps[i] = {int(k): v for k, v in json.loads(rest).items()}
                self.cond.notify_all()
        with self.cond:
            self.ready[i] = self.ready[i] or False
            self.cond.notify_all()

    def _dead(self) -> bool:
        return any(p.poll() not in (None, 0) for p in self.procs)

    def wait_ready(self, timeout: float = 120) -> None:
        with self.cond:
            if not self.cond.wait_for(lambda: all(self.ready) or self._dead(), timeout):
                raise RuntimeError(f"clients not connected within {timeout} s")
            if not all(self.ready):
                raise RuntimeError("a client worker failed to connect")

    def wait_all(self, rev: int, timeout: float = 30) -> int:
        """Blocks until every client holds `rev` or later; returns when the last one got `rev`."""
        with self.cond:
            if not self.cond.wait_for(lambda: min(self.all_rev) >= rev or self._dead(), timeout):
                raise TimeoutError(f"rev {rev} did not reach every client within {timeout} s")
            return max(ns.get(rev, 0) for ns in self.all_ns)

    def dump(self, timeout: float = 60) -> dict[int, list[int]]:
        """Every client's receipt time of every rev; ends the workers."""
        for proc in self.procs:
            proc.stdin.write("dump\n")
            proc.stdin.flush()
        with self.cond:
            self.cond.wait_for(lambda: all(d is not None for d in self.dumps) or self._dead(), timeout)
        merged: dict[int, list[int]] = {}
        for d in self.dumps:
            for rev, times in (d or {}).items():
                merged.setdefault(rev, []).extend(times)
        self.close()
        return merged

    def close(self) -> None:
        for proc in self.procs:
            try:
                proc.stdin.close()
            except OSError:
                pass
        for proc in self.procs:
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)


def recorded_tv_game(data: Path | None, game: str | None, tmp: str) -> tuple[Path, str]:
    """What the render benches draw: the given data folder and game, or a short tv game recorded
    now by a real server in `tmp` (tests/post/games.py: a spin, a minute to its time-up, a verdict)."""
    if data is not None:
        return data, game
    from tests.post.games import play_tv

    data = Path(tmp) / "data"
    srv = Server(data, mode="threading", demo=False).start()
    try:
        return data, play_tv(srv)
    finally:
        srv.stop()
