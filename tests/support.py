"""Helpers shared by the tests and the benches: a real server process on a free port with a small
API client, starting and stopping child processes, and the system Chromium's launch settings."""
from __future__ import annotations

import atexit
import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "test-token-1"
PASSWORD = "test-password-1"
REDIS_KEY = "test-redis-key-1"


def raw_get(srv: "Server", path: str, follow: int = 2) -> tuple[int, bytes]:
    """GET the path exactly as written: no client normalises the dot segments or escapes away.
    A redirect (e.g. `//` merged into `/`) is followed on this server only, `follow` times."""
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        conn.endheaders()
        r = conn.getresponse()
        status, body, location = r.status, r.read(), r.getheader("Location") or ""
    finally:
        conn.close()
    if status in (301, 302, 303, 307, 308) and follow:
        local = location.removeprefix(srv.url)
        assert local.startswith("/") and not local.startswith("//"), (path, location)
        return raw_get(srv, local, follow - 1)
    return status, body


def static_url(path: str) -> str:
    """A static file's address as our pages name it (overlay/web/assets.py: versioned by the static
    tree's content, which the test servers share with this checkout). A page's own modules are
    imported at this address, so a test gets the instance the page runs, not a second one."""
    from overlay.web.app import resource_dir
    from overlay.web.assets import tree_version
    return f"/static/v/{tree_version(resource_dir('static').resolve())}/{path}"

# The system Chromium, never a downloaded browser. Autoplay: overlays play their signals unattended.
# Debian's Chromium as a headless shell (package chromium-headless-shell: the same Blink, Skia and
# fonts, without the full browser's own windowing and UI): a page costs about 40 % less CPU than
# in `chromium --headless`, and most of the suite's CPU is Chromium drawing pages. The full
# browser where the shell is not installed; CHGK_TEST_CHROMIUM names another.
CHROMIUM = os.environ.get("CHGK_TEST_CHROMIUM") or next(
    (p for p in ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium") if os.path.exists(p)), "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--autoplay-policy=no-user-gesture-required"]


class _Worker:
    """One Playwright driver and one system Chromium per test process, started when a module first
    asks for them: a driver's and a browser's start cost ~2 s of CPU (Node, the GPU and network
    processes), paid by some 45 browser modules before."""
    playwright: Playwright | None = None
    browser: Browser | None = None


def worker_playwright() -> Playwright:
    if _Worker.playwright is None:
        from playwright.sync_api import sync_playwright  # only the processes that use a browser pay for it
        _Worker.playwright = sync_playwright().start()
    return _Worker.playwright


def worker_chromium() -> Browser:
    if _Worker.browser is None or not _Worker.browser.is_connected():
        _Worker.browser = worker_playwright().chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    return _Worker.browser


def release_worker_playwright() -> None:
    """Close this process's browser and driver: for a module that runs Playwright's sync API itself
    (the after-show render), which cannot run beside another in one thread. Started again on demand."""
    if _Worker.browser is not None:
        _Worker.browser.close()
    if _Worker.playwright is not None:
        _Worker.playwright.stop()
    _Worker.playwright = _Worker.browser = None


# The top's turn for a game whose test is not about the turn (spec `spin`): the arrow still turns,
# rests and walks, and every screen (and a render) still waits for `reveal_at`, in a second instead of five.
QUICK_SPIN = {"turn": 600, "rest": 100, "step": 60}


# Server processes keep their compiled bytecode here, outside the tree. With
# PYTHONDONTWRITEBYTECODE set (as on this machine) every server start compiled the project's own
# sources again: a fifth of a start's CPU, and the suite starts hundreds of servers.
PYCACHE = os.environ.get("CHGK_TEST_PYCACHE") or str(Path(tempfile.gettempdir()) / f"chgk-overlay-pycache-{os.getuid()}")
BYTECODE_ENV = {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": PYCACHE}


def free_port(kind: int = socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PortTaken(RuntimeError):
    """A program could not bind the port free_port chose for it: another process took it first."""


def start_on_free_ports(start: Callable[[], Any], move: Callable[[], None], *, movable: bool = True,
                        tries: int = 3) -> Any:
    """`start()`; while it raises PortTaken and the ports are `movable` (chosen here, known to no
    client yet), `move()` to new ones and start again. free_port's port can be taken before the
    program binds it, by another process's outgoing connection (run Y; session 16's run B: OBS)."""
    for attempt in range(tries):
        try:
            return start()
        except PortTaken:
            if not movable or attempt == tries - 1:
                raise
            move()
    raise AssertionError("unreachable")


def wait_for(check: Callable[[], Any], timeout: float = 30, what: str = "condition") -> Any:
    """Polls `check` until it returns something true (and returns that), or fails after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def wait_until_up(proc: subprocess.Popen, url: str, timeout: float, what: str = "server",
                  output: Callable[[], str] = lambda: "") -> None:
    """Polls `url` until it answers 2xx; raises with the process's output if it exits first or
    does not answer within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}: {output()}")
        try:
            # a loaded machine may take seconds over the first page (templates compile): a short
            # per-request timeout would abandon every try and never see it answer
            if requests.get(url, timeout=max(0.5, min(10.0, deadline - time.monotonic()))).ok:
                return
        except requests.RequestException:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not start in {timeout} s: {output()}")


class Forked:
    """A server forked by this process's zygote (tests/zygote.py), with the part of
    subprocess.Popen's interface the tests use. Signals go through a pidfd: never to another
    process that took the number after the server ended."""

    def __init__(self, zygote: "Zygote", pid: int) -> None:
        self.zygote, self.pid, self.returncode = zygote, pid, None
        self.pidfd: int | None = os.pidfd_open(pid)

    def poll(self) -> int | None:
        if self.returncode is None:
            self.zygote.collect()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"server {self.pid}", timeout or 0)
            self.zygote.collect(0.02)
        return self.returncode  # type: ignore[return-value]

    def send_signal(self, sig: int) -> None:
        if self.poll() is None and self.pidfd is not None:
            try:
                signal.pidfd_send_signal(self.pidfd, sig)
            except ProcessLookupError:  # ended and reaped meanwhile
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class Zygote:
    """One per async mode in a test process: `python -m tests.zygote MODE` holds the server's
    modules imported, and forks a server per `spawn` (~0.4 s of CPU instead of ~1.2 for a new
    interpreter importing them). `CHGK_TEST_FORK=0` starts every server as `python -m overlay`."""

    running: dict[str, "Zygote"] = {}

    @staticmethod
    def env() -> dict[str, str]:
        return {**os.environ, **BYTECODE_ENV, "PYTHONUNBUFFERED": "1"}

    @classmethod
    def serves(cls, env: dict[str, str]) -> bool:
        """Whether a server with `env` may be forked: not when its interpreter would start
        differently (a PYTHON* variable of its own: test_held's sitecustomize on PYTHONPATH)."""
        own = cls.env()
        return os.environ.get("CHGK_TEST_FORK", "1") == "1" and all(
            env.get(k) == own.get(k) for k in {*env, *own} if k.startswith("PYTHON"))

    def __init__(self, mode: str) -> None:
        self.log_path = Path(tempfile.gettempdir()) / f"chgk-zygote-{os.getpid()}-{mode}.log"
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen([sys.executable, "-m", "tests.zygote", mode], cwd=ROOT, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=log, env=self.env())
        self.children: dict[int, Forked] = {}
        self.pending = b""
        self.lock = threading.Lock()
        atexit.register(self.close)

    @classmethod
    def of(cls, mode: str) -> "Zygote":
        zygote = cls.running.get(mode)
        if zygote is None or zygote.proc.poll() is not None:
            zygote = cls.running[mode] = cls(mode)
        return zygote

    def spawn(self, argv: list[str], env: dict, cwd: Path, log: Path) -> Forked:
        import resource
        request = {"argv": argv, "env": env, "cwd": str(cwd), "log": str(log),
                   "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)}  # as a child of this process would
        with self.lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
            deadline = time.monotonic() + 120  # its first answer waits for its imports
            while time.monotonic() < deadline:
                for message in self._read(timeout=1):
                    if "pid" in message:
                        child = self.children[message["pid"]] = Forked(self, message["pid"])
                        return child
        raise RuntimeError(f"the server zygote did not fork within 120 s: {self.log_path.read_text(errors='replace')[-3000:]}")

    def close(self) -> None:
        """At the test process's exit: the zygote ends with its stdin; an empty log goes."""
        if self.proc.stdin:
            self.proc.stdin.close()
        if self.log_path.exists() and not self.log_path.stat().st_size:
            self.log_path.unlink()

    def collect(self, timeout: float = 0) -> None:
        """Takes in the ends the zygote has reported (waiting up to `timeout` s for one)."""
        with self.lock:
            for message in self._read(timeout):
                raise AssertionError(f"the zygote answered {message} unasked")

    def _read(self, timeout: float) -> list[dict]:
        """Lines from the zygote within `timeout` s: ends recorded here, the others returned."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        others: list[dict] = []
        if select.select([fd], [], [], timeout)[0]:
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError(f"the server zygote ended: {self.log_path.read_text(errors='replace')[-3000:]}")
            self.pending += chunk
        while b"\n" in self.pending:
            line, self.pending = self.pending.split(b"\n", 1)
            message = json.loads(line)
            if "exit" in message:
                child = self.children.pop(message["exit"], None)
                if child is not None:
                    child.returncode = message["code"]
                    if child.pidfd is not None:
                        os.close(child.pidfd)
                        child.pidfd = None
            else:
                others.append(message)
        return others


def stop_process(proc: subprocess.Popen | None, timeout: float = 10) -> None:
    """SIGTERM, and SIGKILL if the process has not gone within `timeout` seconds."""
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)


def handle_in_order(sio: Any) -> Any:
    """Makes a python-socketio client handle its messages one after another, in the order they
    arrived, on the thread that reads the socket — as a browser's page does. python-engineio's
    client runs each message's handler in a thread of its own, so on a loaded machine a client
    could record rev 44 before rev 43 (and apply a patch before the state it patches). Returns
    `sio`."""
    eio, spawn = sio.eio, sio.eio.start_background_task

    def in_order(target: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if target == eio.handlers.get("message"):
            return target(*args, **kwargs)
        return spawn(target, *args, **kwargs)

    eio.start_background_task = in_order
    return sio


def close_client(sio: Any) -> None:
    """Closes a python-socketio client for good. disconnect() alone leaves a reconnection that is
    under way running (its server killed or restarted) for the rest of the run; shutdown() ends
    it, and a reconnection that completes while shutdown() waits for it is then disconnected."""
    sio.shutdown()
    if sio.connected:
        sio.disconnect()


class Server:
    """`python -m overlay serve` in a child process, with its own data folder. `kill` is a crash
    (SIGKILL); `start` again reuses the port and the data folder, as an operator restarting the
    server would. `kind="edge"` starts a read-only edge instead (`redis` required); `redis`
    given to `serve` makes it the writer."""

    password = PASSWORD
    token = TOKEN

    def __init__(self, data: Path, *, mode: str = "eventlet", demo: bool = True,
                 port: int | None = None, args: tuple[str, ...] = (), env: dict | None = None,
                 kind: str = "serve", redis: str | None = None) -> None:
        self.data, self.mode, self.demo, self.args = Path(data), mode, demo, args
        self.kind, self.redis = kind, redis
        self.port = port or free_port()
        self.chosen = port is None  # a port chosen here, not yet known to any client (see start)
        self.env = {**os.environ, "CHGK_OVERLAY_TOKEN": TOKEN, "CHGK_OVERLAY_PASSWORD": PASSWORD,
                    "CHGK_OVERLAY_REDIS_KEY": REDIS_KEY,  # what a writer and its edges share
                    "PYTHONUNBUFFERED": "1", **BYTECODE_ENV,
                    # tests send wrong credentials on purpose; the throttle has tests of its own
                    "CHGK_OVERLAY_LOGIN_ATTEMPTS": "1000", **(env or {})}
        self.proc: subprocess.Popen | None = None
        self.log = None
        self.log_path = self.data.parent / f"server-{self.port}.log"
        self.http = requests.Session()
        # no proxy, netrc or CA bundle from the environment for a server on this machine: requests
        # looks them up again for every request otherwise (~10 % of a fuzz test's own CPU)
        self.http.trust_env = False
        self.http.headers["Authorization"] = f"Bearer {TOKEN}"
        # The server closes a keep-alive connection idle for HEADER_TIMEOUT (10 s): a GET sent on
        # it at that moment is lost with it, and is sent again on a new one, as a browser does.
        self.http.mount("http://", HTTPAdapter(max_retries=Retry(
            total=1, connect=0, read=1, status=0, other=0, allowed_methods=frozenset({"GET", "HEAD"}))))

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120) -> "Server":  # a loaded 2-core machine imports slowly
        def once() -> None:
            cmd = [sys.executable, "-m", "overlay", self.kind, "--port", str(self.port), "--data", str(self.data),
                   "--async-mode", self.mode, *(["--demo"] if self.demo and self.kind == "serve" else []),
                   *(["--redis", self.redis] if self.redis else []), *self.args]
            if self.log:
                self.log.close()
            self.log = open(self.log_path, "ab")
            since = self.log_path.stat().st_size  # what this start says comes after (a restart appends)
            if Zygote.serves(self.env):
                self.proc = Zygote.of(self.mode).spawn(cmd[3:], self.env, ROOT, self.log_path)  # type: ignore[assignment]
            else:
                self.proc = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
            try:
                wait_until_up(self.proc, self.url + "/api/time", timeout, output=self.output)
                self._wait_bound(since, timeout)
            except RuntimeError as exc:
                if "Address already in use" in self.output(since):
                    raise PortTaken(str(exc)) from exc
                raise

        def move() -> None:
            self.port = free_port()
            self.log_path = self.data.parent / f"server-{self.port}.log"

        start_on_free_ports(once, move, movable=self.chosen)
        self.chosen = False  # served now: a restart keeps this port
        return self

    def output(self, since: int = 0) -> str:
        """The end of what the server said (from byte `since` of its log on)."""
        if self.log:
            self.log.flush()
        if not self.log_path.exists():
            return ""
        with open(self.log_path, "rb") as f:
            f.seek(since)
            return f.read().decode(errors="replace")[-3000:]

    def _wait_bound(self, since: int, timeout: float) -> None:
        """Waits until this server says it listens on its port. /api/time answers from any server
        there: one started elsewhere on the same free port first (another test process's, the
        Companion tests') answers it while this one exits with the address in use."""
        bound = re.compile(rf"listening on https?://\S+:{self.port}\b")
        deadline = time.monotonic() + timeout
        while not bound.search(self.output(since)):
            if self.proc.poll() is not None or time.monotonic() > deadline:  # type: ignore[union-attr]
                raise RuntimeError(f"another program answers on port {self.port}; this server said: "
                                   f"{self.output(since)}")
            time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, exactly like a crash."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        stop_process(self.proc)
        self.http.close()

    # API ---------------------------------------------------------------------------------------

    def call(self, method: str, path: str, json: Any = None, **kw: Any) -> requests.Response:
        return self.http.request(method, self.url + path, json=json, timeout=10, **kw)

    def api(self, method: str, path: str, body: Any = None) -> Any:
        """The answer's JSON, once it is known to be a success."""
        r = self.call(method, path, body)
        assert r.ok, f"{method} {path} -> {r.status_code} {r.text}"
        return r.json()

    def command(self, game: str, **body: Any) -> requests.Response:
        return self.call("POST", f"/api/games/{game}/commands", body)

    def play(self, game: str, type_: str, **fields: Any) -> dict:
        """A command that must be accepted; the state it made."""
        r = self.command(game, type=type_, **fields)
        assert r.status_code == 200, f"{type_} {fields} -> {r.status_code} {r.text}"
        return r.json()["state"]

    def state(self, game: str) -> dict:
        r = self.call("GET", f"/api/games/{game}")
        assert r.status_code == 200, r.text
        return r.json()

    def log_length(self, game: str) -> int:
        return len(self.call("GET", f"/api/games/{game}/log").json()["events"])

    def create(self, spec: dict, *, on_air: bool = False) -> str:
        r = self.call("POST", "/api/games", spec)
        assert r.status_code == 201, r.text
        game = r.json()["id"]
        if on_air:
            self.api("PUT", "/api/on-air", {"game": game})
        return game


class Redis:
    """Debian's redis-server on a free port in its own folder, never the system service. No
    persistence: a restart comes back empty, the hardest case for the edges."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.chosen = port is None  # a port chosen here, not yet known to any client (see start)
        self.proc: subprocess.Popen | None = None
        self.log_path = self.folder / f"redis-{self.port}.log"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 20) -> "Redis":
        import redis

        def once() -> None:
            with open(self.log_path, "ab") as log:
                self.proc = subprocess.Popen(
                    ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                     "no", "--dir", str(self.folder), "--daemonize", "no"], stdout=log, stderr=subprocess.STDOUT)
            client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    said = self.log_path.read_text(errors="replace")[-2000:]
                    raise (PortTaken if "Address already in use" in said else RuntimeError)(
                        f"redis-server exited: {said}")
                try:
                    if client.ping():
                        client.close()
                        return
                except redis.RedisError:
                    time.sleep(0.05)
            raise RuntimeError(f"redis-server did not answer in {timeout} s")

        def move() -> None:
            self.port = free_port()
            self.log_path = self.folder / f"redis-{self.port}.log"

        start_on_free_ports(once, move, movable=self.chosen)
        self.chosen = False  # served now: a restart keeps this port
        return self

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        stop_process(self.proc)


# scale-out: Redis between a writer and its edges ------------------------------------------------

EDGE_MODE = os.environ.get("CHGK_TEST_ASYNC_MODE", "eventlet")
EDGE_MODE = EDGE_MODE if EDGE_MODE in ("eventlet", "gevent") else "eventlet"


def edge_status(edge: Server) -> dict:
    return requests.get(edge.url + "/api/edge", timeout=10).json()


def start_edge(tmp: Path, name: str, redis_url: str, mode: str = EDGE_MODE, started: list | None = None) -> Server:
    """An edge that has read the writer's state; added to `started` before it starts, so that a
    fixture stops it even when starting fails."""
    edge = Server(tmp / name, mode=mode, kind="edge", redis=redis_url)
    if started is not None:
        started.append(edge)
    edge.start(timeout=120)
    wait_for(lambda: edge_status(edge)["synced"], what=f"{name} to read the writer's state")
    return edge


@dataclass
class ScaleOut:
    redis: Redis
    writer: Server
    edges: list[Server]
    started: list = field(default_factory=list)  # stopped at the end, the last started first


@contextmanager
def scale_out(tmp: Path, edges: int = 0, **writer: Any) -> Iterator[ScaleOut]:
    """Debian's redis-server, a writer publishing to it (`writer`: Server's keywords) and `edges`
    edges that have read its state, in `tmp`. What a test starts beside them goes in `started`;
    all of it is stopped at the end, also when one of them fails to start."""
    started: list = []
    try:
        redis = Redis(tmp / "redis")
        started.append(redis)
        redis.start()
        srv = Server(tmp / "writer", redis=redis.url, **writer)
        started.append(srv)
        srv.start(timeout=120)
        yield ScaleOut(redis, srv, [start_edge(tmp, f"edge{i}", redis.url, started=started)
                                    for i in range(1, edges + 1)], started)
    finally:
        for proc in reversed(started):
            proc.stop()
