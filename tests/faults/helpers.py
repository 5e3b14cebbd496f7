"""Tools for the fault, hostile-input and security tests: a command driver that records what
the server acknowledged, a Socket.IO watcher, real filesystems that fill up or turn read-only,
and comparisons of states that ignore only the moment they were read at.

Everything here talks to a real server process (`tests.support.Server`) over real sockets.
"""
from __future__ import annotations

import base64
import copy
import random
import re
import sqlite3
import subprocess
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
import socketio

from tests.support import PASSWORD, TOKEN, Server, close_client

PLAYERS = ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]
LONG = 600_000  # timers that never run out during a test: no time-up moves the state by itself


def tv_spec(title: str = "Игра под нагрузкой", **extra: Any) -> dict:
    """A tv game with every kind of sector and long timers."""
    def q(n: int, i: int = 0) -> dict:
        return {"text": f"Вопрос {n}.{i}", "answer": f"Ответ {n}.{i}",
                "author": {"name": f"Зритель {n}", "city": "Харьков"}, "prize": {"amount": 100 * n, "currency": "UAH"}}
    sectors = []
    for n in range(1, 14):
        kind = {5: "blitz", 9: "superblitz", 13: "sponsor"}.get(n, "regular")
        count = 3 if kind in ("blitz", "superblitz") else 1
        sectors.append({"number": n, "kind": kind, "questions": [q(n, i) for i in range(count)]})
    return {"rules": "tv", "title": title, "target": 6,
            "experts": {"name": "Команда Иванова", "players": PLAYERS, "captain": "Анна"},
            "sectors": sectors,
            "timers": {"minute": LONG, "blitz": LONG, "extra_minute": LONG, "club_help": LONG}, **extra}


# comparing states ---------------------------------------------------------------------------------

def steady(state: dict | None) -> dict | None:
    """A state without what depends on the moment it was read (server_now, a running timer's
    remaining_ms); everything else — rev, score, round, timer end, undo, moves — must match."""
    if state is None:
        return None
    out = copy.deepcopy(state)
    out.pop("server_now", None)
    timer = out.get("timer")
    if timer:
        timer.pop("server_now", None)
        if timer.get("running"):
            timer.pop("remaining_ms", None)
    return out


def without_rev(state: dict) -> dict:
    out = steady(state)
    assert out is not None
    out.pop("rev", None)
    return out


# the command driver ---------------------------------------------------------------------------------

@dataclass
class Sent:
    """One request the driver made: what, and what came back (None: no answer — the server died)."""
    kind: str                 # command | undo | graphics | create | on_air
    game: str | None
    body: dict
    status: int | None = None
    answer: dict | None = None


@dataclass
class Driver:
    """Plays a tv game as fast as one client can, choosing among the moves the rules allow, with
    an undo or a graphic now and then, over HTTP. Runs in a thread until the server dies or
    `stop` is set; every request and its answer is kept in order."""

    srv: Server
    game: str
    rng: random.Random
    sent: list[Sent] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    titles: int = 0

    def __post_init__(self) -> None:
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {TOKEN}"
        self.state = self._get(f"/api/games/{self.game}")

    def _get(self, path: str) -> Any:
        r = self.http.get(self.srv.url + path, timeout=10)
        r.raise_for_status()
        return r.json()

    def _send(self, kind: str, method: str, path: str, body: dict, game: str | None) -> Sent:
        item = Sent(kind, game, body)
        self.sent.append(item)  # before the request: an unanswered request is recorded too
        r = self.http.request(method, self.srv.url + path, json=body, timeout=10)
        item.answer = r.json()
        item.status = r.status_code
        return item

    def next_body(self) -> tuple[str, dict]:
        state, rng = self.state, self.rng
        moves = [k for k, v in state["moves"].items() if v["ok"]]
        roll = rng.random()
        if roll < 0.08:
            self.titles += 1
            return "graphics", {"action": "show", "graphic": "lower-third",
                                "data": {"title": f"Титр {self.titles}", "subtitle": self.game}}
        if (roll < 0.2 or not moves or state["status"] == "finished") and state.get("undo"):
            return "undo", {}
        if not moves:
            return "graphics", {"action": "hide", "graphic": "lower-third"}
        kind = rng.choice(moves)
        body: dict[str, Any] = {"type": kind}
        if kind == "spin":
            free = [s["number"] for s in state["sectors"] if not s["played"]]
            if free and rng.random() < 0.7:
                body["landed"] = rng.choice(free)
        elif kind == "judge":
            body["correct"] = rng.random() < 0.5
        elif kind == "choose_player":
            body["player"] = rng.choice(PLAYERS)
        elif kind == "decide_decisive_round":
            body["granted"] = rng.random() < 0.5
            if body["granted"]:
                body["players"] = rng.sample(PLAYERS, 3)
        if rng.random() < 0.3:
            body["expected_rev"] = state["rev"]
        return "command", body

    def step(self) -> Sent:
        kind, body = self.next_body()
        if kind == "graphics":
            return self._send(kind, "POST", "/api/graphics", body, None)
        path = f"/api/games/{self.game}/{'undo' if kind == 'undo' else 'commands'}"
        item = self._send(kind, "POST", path, body, self.game)
        if item.status == 200:
            self.state = item.answer["state"]
        return item

    def run(self) -> None:
        try:
            while not self.stop.is_set():
                self.step()
        except requests.RequestException:
            pass  # the server was killed: the last request may have no answer
        except BaseException as exc:  # noqa: BLE001  (reported by the test)
            self.error = exc

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, daemon=True)
        thread.start()
        return thread

    # what the server promised ---------------------------------------------------------------------

    def acked(self, kind: str | None = None) -> list[Sent]:
        return [s for s in self.sent if s.status == 200 and (kind is None or s.kind == kind)]

    def unanswered(self) -> Sent | None:
        return self.sent[-1] if self.sent and self.sent[-1].status is None else None


# watching the sockets ---------------------------------------------------------------------------------

class Watcher:
    """A python-socketio client (reconnecting by itself, as overlays and panels do) that keeps
    every `state` and `graphics` it gets and every connect and disconnect."""

    def __init__(self, url: str, namespace: str = "/overlay", *, token: str | None = None,
                 headers: dict | None = None, delay: float = 0.3) -> None:
        self.ns = namespace
        self.sio = socketio.Client(reconnection=True, reconnection_delay=delay, reconnection_delay_max=delay * 2,
                                   randomization_factor=0.1)
        # python-engineio's client runs each message's handler in a thread of its own, so on a
        # loaded machine two states could be recorded out of the order they arrived in (a loaded
        # run saw 62, 61). An overlay handles its messages in order: so does this watcher, on
        # the thread that reads the socket.
        eio, spawn = self.sio.eio, self.sio.eio.start_background_task

        def in_order(target: Any, *args: Any, **kwargs: Any) -> Any:
            if target == eio.handlers.get("message"):
                return target(*args, **kwargs)
            return spawn(target, *args, **kwargs)

        eio.start_background_task = in_order
        self.states: list[dict | None] = []
        self.graphics: list[dict] = []
        self.log: list[str] = []
        self.lock = threading.RLock()  # predicates of `wait` read through the same lock
        self.changed = threading.Condition(self.lock)
        self.sio.on("state", self._state, namespace=namespace)
        self.sio.on("graphics", self._graphics, namespace=namespace)
        self.sio.on("connect", lambda: self._mark("connect"), namespace=namespace)
        self.sio.on("disconnect", lambda *a: self._mark("disconnect"), namespace=namespace)
        self.sio.connect(url, namespaces=[namespace], transports=["websocket"], wait_timeout=10,
                         auth={"token": token} if token else None, headers=headers or {})

    def _mark(self, what: str) -> None:
        with self.changed:
            self.log.append(what)
            self.changed.notify_all()

    def _state(self, state: Any) -> None:
        with self.changed:
            self.states.append(state)
            self.log.append(f"state {state['rev'] if state else None}")
            self.changed.notify_all()

    def _graphics(self, payload: Any) -> None:
        with self.changed:
            self.graphics.append(payload)
            self.changed.notify_all()

    def wait(self, predicate: Any, timeout: float = 10.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    marks = [x for x in self.log if not x.startswith("state")]
                    raise AssertionError(f"watcher: {what or 'condition'} not met in {timeout}s; log {self.log[-12:]}; marks {marks}")
                self.changed.wait(min(left, 0.05))  # some of what predicates read changes unannounced

    def reconnected(self, drops: int = 1) -> bool:
        """Connected again after at least `drops` disconnects, given a state since the last one (a
        handler thread may report that state before the connect itself), and the client's
        reconnection over. python-socketio marks itself connected, and ends its reconnect task, a
        moment after the connect event: a cut in between goes unnoticed (no disconnect event, no
        new attempt), and the client stays on a dead connection for good (session 17, run G's
        second cut)."""
        from socketio import base_client
        with self.lock:
            marks = [x for x in self.log if x in ("connect", "disconnect")]
            if marks.count("disconnect") < drops or marks[-1] != "connect":
                return False
            last = len(self.log) - 1 - self.log[::-1].index("disconnect")
            return (any(x.startswith("state") for x in self.log[last + 1:]) and self.sio.connected
                    and self.sio not in base_client.reconnecting_clients)

    def last(self) -> dict | None:
        with self.lock:
            return self.states[-1] if self.states else None

    def revs(self, game: str) -> list[int]:
        with self.lock:
            return [s["rev"] for s in self.states if s and s.get("id") == game]

    def close(self) -> None:
        close_client(self.sio)


@contextmanager
def watching(srv: Server) -> Iterator[tuple[Watcher, Watcher]]:
    """An overlay screen and a panel (sockets) that have their first state and graphics; both
    closed at the end."""
    with ExitStack() as stack:
        overlay = Watcher(srv.url, "/overlay")
        stack.callback(overlay.close)
        panel = Watcher(srv.url, "/control", token=TOKEN)
        stack.callback(panel.close)
        for w in (overlay, panel):
            w.wait(lambda w: w.states and w.graphics, what="first state")
        yield overlay, panel


def drop_connections(port: int) -> str:
    """A network cut seen from the server: destroy the server's end of every established TCP
    connection on `port` (the kernel sends a reset to the peer). Returns what `ss` killed."""
    r = subprocess.run(["ss", "-K", "-t", "-n", "state", "established", "sport", "=", f":{port}"],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    return r.stdout


# real filesystems that fail -----------------------------------------------------------------------------

def _run(*cmd: str) -> None:
    r = subprocess.run(list(cmd), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"{' '.join(cmd)}: {r.stderr or r.stdout}"


@contextmanager
def tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A small RAM filesystem mounted at `path`: it runs out of space for real (ENOSPC)."""
    path.mkdir(parents=True, exist_ok=True)
    _run("mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path))
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30)


def fill(folder: Path, name: str = "filler.bin") -> Path:
    """Write into `folder` until its filesystem is full. Returns the filler (delete it to free space)."""
    filler = folder / name
    chunk = b"\0" * 4096
    with open(filler, "wb", buffering=0) as f:
        try:
            while True:
                f.write(chunk)
        except OSError as exc:
            assert exc.errno == 28, exc  # ENOSPC
    # smaller writes too, so that no partly used block is left
    with open(folder / (name + ".tail"), "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0")
        except OSError:
            pass
    return filler


def unfill(folder: Path, name: str = "filler.bin") -> None:
    for p in (folder / name, folder / (name + ".tail")):
        p.unlink(missing_ok=True)


class Ext4:
    """An ext4 image loop-mounted with errors=remount-ro. `break_readonly` reports a filesystem
    error to the kernel, which turns the mount read-only at once under the running server —
    exactly what happens when a USB disk or SD card starts failing during a show."""

    def __init__(self, image: Path, mountpoint: Path, size_mb: int = 24) -> None:
        self.image, self.mountpoint, self.size_mb = image, mountpoint, size_mb

    def create(self) -> "Ext4":
        with open(self.image, "wb") as f:
            f.truncate(self.size_mb << 20)
        _run("mkfs.ext4", "-q", "-F", str(self.image))
        return self.mount()

    def mount(self) -> "Ext4":
        self.mountpoint.mkdir(parents=True, exist_ok=True)
        _run("mount", "-o", "loop,errors=remount-ro", str(self.image), str(self.mountpoint))
        return self

    @property
    def device(self) -> str:
        r = subprocess.run(["findmnt", "-n", "-o", "SOURCE", str(self.mountpoint)], capture_output=True, text=True)
        return r.stdout.strip()

    def options(self) -> str:
        r = subprocess.run(["findmnt", "-n", "-o", "OPTIONS", str(self.mountpoint)], capture_output=True, text=True)
        return r.stdout.strip()

    def break_readonly(self) -> None:
        dev = Path(self.device).name
        Path(f"/sys/fs/ext4/{dev}/trigger_fs_error").write_text("chgk-overlay fault test\n")
        deadline = time.monotonic() + 5
        while not {"ro", "emergency_ro"} & set(re.split(r"[,\s]", self.options())):
            assert time.monotonic() < deadline, f"the filesystem did not turn read-only: {self.options()}"
            time.sleep(0.05)

    def repair(self) -> None:
        """Unmount (the server must be gone), check and mount read-write again."""
        self.unmount()
        subprocess.run(["e2fsck", "-fy", str(self.image)], capture_output=True, timeout=60)
        self.mount()

    def unmount(self, lazy: bool = False) -> None:
        subprocess.run(["umount", *(["-l"] if lazy else []), str(self.mountpoint)], capture_output=True, timeout=30)


def integrity(db: Path) -> str:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        con.close()


def server_output(srv: Server) -> str:
    """Everything the server process has written to stdout and stderr (Server sends both to one file)."""
    srv.log.flush()
    return srv.log_path.read_text(errors="replace")


def login(url: str, password: str = PASSWORD) -> requests.Session:
    """A panel login as a browser does it: fetch the form (CSRF token in the page), post it."""
    http = requests.Session()
    page = http.get(url + "/control/", timeout=10)
    token = csrf_of(page.text)
    r = http.post(url + "/control/login", data={"csrf": token, "password": password, "next": "panel"},
                  allow_redirects=False, timeout=10)
    assert r.status_code in (302, 303), (r.status_code, r.text[:300])
    return http


def session_payload(value: str) -> str:
    """What Flask's signed (not encrypted) session cookie carries, readable by anyone holding it."""
    compressed = value.startswith(".")
    data = value.lstrip(".").split(".")[0]
    raw = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    return (zlib.decompress(raw) if compressed else raw).decode("utf-8", "replace")


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html) or re.search(r'"csrf":\s*"([^"]+)"', html)
    assert m, "no CSRF token in the page"
    return m.group(1)


def panel_csrf(http: requests.Session, url: str) -> str:
    return csrf_of(http.get(url + "/control/", timeout=10).text)
