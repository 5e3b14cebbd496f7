"""Outbound OSC: a queue and one background task, so the game never waits for the network.

The session's listener only renders messages and puts them on the queue. The task sends each
when due (`delay_ms`), over one connected UDP socket per destination so that "nothing listens
there" (ICMP port unreachable) comes back as an error we can show, and records per target the
last cues sent, errors and any replies sent back to that socket.
"""
from __future__ import annotations

import heapq
import itertools
import logging
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pythonosc.osc_message import OscMessage

from .runtime import Runtime
from .template import build

log = logging.getLogger("chgk_overlay.osc")
RECONNECT_S = 30.0  # /connect again after this long without a message: a UDP "connection" is forgotten
MAX_PENDING = 5000
IDLE_S = 0.5
RESOLVE_RETRY_S = 30.0  # a host name that did not resolve is tried again after this long
LOG_EVERY_S = 60.0


@dataclass
class Outgoing:
    target: str  # the target's name, or "surface ip:port" for feedback
    host: str
    port: int
    address: str
    args: list[tuple[str, Any]]
    dgram: bytes
    event: str = ""
    delay_ms: int = 0
    passcode: str = ""


@dataclass
class TargetStats:
    sent: int = 0
    errors: int = 0
    last_error: str | None = None
    last_error_at: int | None = None
    last_sent_at: int | None = None
    recent: deque = field(default_factory=lambda: deque(maxlen=20))
    replies: deque = field(default_factory=lambda: deque(maxlen=5))
    refusals: int = 0  # since the stats were last reset (a surface's /chgk/subscribe)

    def view(self) -> dict[str, Any]:
        return {"sent": self.sent, "errors": self.errors, "last_error": self.last_error,
                "last_error_at": self.last_error_at, "last_sent_at": self.last_sent_at,
                "recent": list(self.recent)[::-1], "replies": list(self.replies)[::-1]}


@dataclass
class _Link:
    sock: socket.socket
    last_send: float = float("-inf")
    names: set[str] = field(default_factory=set)


class Sender:
    def __init__(self, runtime: Runtime | None = None, clock_ms: Callable[[], int] | None = None) -> None:
        self.runtime = runtime
        self.clock_ms = clock_ms or (lambda: time.time_ns() // 1_000_000)
        self.queue: Any = None
        self.stats: dict[str, TargetStats] = {}
        self.links: dict[tuple[str, int], _Link] = {}
        self.lock = threading.Lock()
        self.unresolved: dict[str, tuple[float, str]] = {}  # host → (retry after, error): DNS is slow to fail
        self.logged: dict[str, tuple[float, str]] = {}  # target → (when, error) last logged

    # the game's side: never blocks ----------------------------------------------------------------

    def start(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.queue = runtime.make_queue()
        runtime.spawn(self._run)

    def submit(self, items: list[Outgoing]) -> None:
        if items and self.queue is not None:
            self.queue.put((time.monotonic(), items))

    def note(self, target: str, entry: dict[str, Any], error: str | None = None) -> None:
        """Record a cue (sent or failed) against a target for the status page."""
        now = self.clock_ms()
        with self.lock:
            st = self.stats.setdefault(target, TargetStats())
            st.recent.append({"at": now, **entry, "error": error})
            if error:
                self._error(target, st, error, now)
            else:
                st.sent += 1
                st.last_sent_at = now

    def fail(self, target: str, error: str) -> None:
        """A refusal reported after the fact (ICMP port unreachable for an earlier datagram)."""
        with self.lock:
            st = self.stats.setdefault(target, TargetStats())
            st.refusals += 1
            self._error(target, st, error, self.clock_ms())

    def _error(self, target: str, st: TargetStats, error: str, now: int) -> None:
        """Count it; log it when it is new for this target, or once a minute while it lasts."""
        st.errors += 1
        st.last_error, st.last_error_at = error, now
        when, last = self.logged.get(target, (float("-inf"), ""))
        if error != last or time.monotonic() - when > LOG_EVERY_S:
            self.logged[target] = (time.monotonic(), error)
            log.warning("OSC to %s: %s", target, error)

    def refusals(self, target: str) -> int:
        with self.lock:
            st = self.stats.get(target)
            return st.refusals if st else 0

    def reset(self, target: str) -> None:
        with self.lock:
            self.stats.pop(target, None)

    def view(self, target: str) -> dict[str, Any]:
        with self.lock:
            return self.stats.get(target, TargetStats()).view()

    def forget(self, keep: set[str]) -> None:
        """Drop the statistics of targets no longer configured."""
        with self.lock:
            for name in [n for n in self.stats if n not in keep and not n.startswith("surface ")]:
                del self.stats[name]

    # the background task ----------------------------------------------------------------------------

    def _run(self) -> None:
        assert self.runtime is not None
        pending: list[tuple[float, int, Outgoing]] = []
        seq = itertools.count()
        while True:
            try:
                timeout = max(0.0, pending[0][0] - time.monotonic()) if pending else IDLE_S
                try:
                    queued_at, items = self.queue.get(timeout=timeout)
                    for item in items:
                        if len(pending) >= MAX_PENDING:
                            self.note(item.target, self._entry(item), "dropped: too many cues waiting")
                            continue
                        heapq.heappush(pending, (queued_at + item.delay_ms / 1000, next(seq), item))
                except self.runtime.empty:
                    self._drain_all()
                now = time.monotonic()
                while pending and pending[0][0] <= now:
                    self._send(heapq.heappop(pending)[2])
            except Exception:  # the sender must outlive any bad cue
                log.exception("OSC sender: unexpected error")
                self.runtime.sleep(0.1)

    @staticmethod
    def _entry(item: Outgoing) -> dict[str, Any]:
        return {"event": item.event, "address": item.address, "args": [v for _, v in item.args]}

    def _link(self, item: Outgoing) -> _Link:
        key = (item.host, item.port)
        link = self.links.get(key)
        if link is None:
            until, error = self.unresolved.get(item.host, (0.0, ""))
            if time.monotonic() < until:
                raise _Unresolved(error)
            try:
                family, kind, proto, _, addr = socket.getaddrinfo(item.host, item.port, type=socket.SOCK_DGRAM)[0]
            except socket.gaierror as exc:
                error = _describe(exc, f"{item.host}:{item.port}")
                self.unresolved[item.host] = (time.monotonic() + RESOLVE_RETRY_S, error)
                raise _Unresolved(error) from None
            sock = socket.socket(family, kind, proto)
            sock.connect(addr)
            link = self.links[key] = _Link(sock)
        link.names.add(item.target)
        return link

    def _send(self, item: Outgoing) -> None:
        try:
            link = self._link(item)
            now = time.monotonic()
            if item.passcode and now - link.last_send > RECONNECT_S:
                self._write(item, link, build("/connect", [("string", item.passcode)]))
            self._write(item, link, item.dgram)
            link.last_send = now
            self.note(item.target, self._entry(item))
            self._drain(item.target, link, f"{item.host}:{item.port}")
        except _Unresolved as exc:
            self.note(item.target, self._entry(item), str(exc))
        except OSError as exc:
            self._close(item.host, item.port)
            self.note(item.target, self._entry(item), _describe(exc, f"{item.host}:{item.port}"))

    def _write(self, item: Outgoing, link: _Link, dgram: bytes) -> None:
        try:
            link.sock.send(dgram)
        except ConnectionRefusedError:  # an earlier datagram was refused; this one was not sent yet
            self.fail(item.target, _describe(ConnectionRefusedError(), f"{item.host}:{item.port}"))
            link.sock.send(dgram)  # the target may be back: try this one anyway

    def _drain(self, name: str, link: _Link, where: str) -> None:
        """Read what came back: replies (shown in the status) and deferred ICMP errors."""
        for _ in range(16):
            readable, _, _ = select.select([link.sock], [], [], 0)
            if not readable:
                return
            try:
                data = link.sock.recv(65535)
            except OSError as exc:  # an earlier datagram was refused: the target is down
                for target in link.names:
                    self.fail(target, _describe(exc, where))
                return
            with self.lock:
                self.stats.setdefault(name, TargetStats()).replies.append(
                    {"at": self.clock_ms(), "message": _show(data)})

    def _drain_all(self) -> None:
        for key, link in list(self.links.items()):
            try:
                self._drain(next(iter(link.names), "?"), link, f"{key[0]}:{key[1]}")
            except OSError:
                self._close(*key)

    def _close(self, host: str, port: int) -> None:
        link = self.links.pop((host, port), None)
        if link:
            try:
                link.sock.close()
            except OSError:
                pass


class _Unresolved(Exception):
    pass


def _describe(exc: OSError, where: str) -> str:
    if isinstance(exc, ConnectionRefusedError):
        return f"connection refused: nothing listens at {where}"
    if isinstance(exc, socket.gaierror):
        return f"unknown host {where}: {exc.strerror}"
    return f"{exc.strerror or exc} ({where})"


def _show(data: bytes) -> str:
    try:
        msg = OscMessage(data)
        return " ".join([msg.address, *map(str, msg.params)])[:300]
    except Exception:
        return repr(data[:80])
