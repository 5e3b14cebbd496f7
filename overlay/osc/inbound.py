"""Inbound OSC: datagrams from surfaces become commands on the on-air game, through the same
`Sessions.execute` / `undo` / `Graphics.apply` as the panel and HTTP.

One catch-all handler with our own routing table (routes.py), as python-osc practice advises;
python-osc only parses. Whatever arrives — a bundle, garbage, a flood — is counted, logged
(at a bounded rate) and shown in the status; nothing but a valid command changes the game.
"""
from __future__ import annotations

import ipaddress
import logging
import socket
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

from pythonosc.osc_packet import OscPacket

from ..graphics.game import Graphics
from ..rules.errors import InputError
from ..core.session import Sessions
from ..core.store import StorageError
from .routes import Action, Ignore, Refuse, route
from .template import build

log = logging.getLogger("chgk_overlay.osc")
REPEAT_WINDOW_S = 0.2
MAX_ADDRESS = 1024  # bytes; our addresses are a few dozen
LOG_BURST = 20  # refusals logged per LOG_PERIOD_S; the rest are only counted
LOG_PERIOD_S = 10.0

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_allow(entries: list[str] | tuple[str, ...]) -> list[Network]:
    return [ipaddress.ip_network(str(e), strict=False) for e in entries]


def allowed(host: str, networks: list[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return any(ip.version == net.version and ip in net for net in networks)


class Inbound:
    def __init__(self, sessions: Sessions, graphics: Graphics, allow: list[str] | tuple[str, ...],
                 on_subscribe: Callable[[str, int, bool], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sessions, self.graphics = sessions, graphics
        self.networks = parse_allow(allow)
        self.allow = list(allow)
        self.on_subscribe = on_subscribe
        self.clock = clock
        self.reply: Callable[[bytes, Any], None] | None = None  # set by the receiver: send from the listening socket
        self.rundowns: Any = None  # overlay.rundown.Rundowns, set by the app
        self.last_action: dict[str, float] = {}
        self.counters: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()
        self.last_errors: deque = deque(maxlen=20)
        self.last_accepted: deque = deque(maxlen=10)
        self.lock = threading.Lock()
        self._log_window = (0.0, 0)

    def set_allow(self, allow: list[str] | tuple[str, ...]) -> None:
        self.networks, self.allow = parse_allow(allow), list(allow)

    # one datagram --------------------------------------------------------------------------------

    def handle(self, data: bytes, sender: Any) -> None:
        """Never raises: a surface cannot crash the server or the receive loop. The datagram is
        counted once it is handled: whoever sees the count sees what it did (a command's fsync
        lets other green threads run in the middle)."""
        host, port = str(sender[0]), int(sender[1])
        who = f"{host}:{port}"
        try:
            if not allowed(host, self.networks):
                self._refuse(who, "", "sender_not_allowed",
                             f"{host} is not on the OSC allow-list ({', '.join(self.allow) or 'empty'})")
                return
            if not data.startswith(b"#bundle") and not 0 < data.find(b"\0") <= MAX_ADDRESS:
                # refused before python-osc, whose pure-Python parser is slow on a huge address
                self._refuse(who, "", "malformed", f"not an OSC message: no address of at most {MAX_ADDRESS} bytes")
                return
            try:
                messages = [m.message for m in OscPacket(data).messages]
            except Exception as exc:  # python-osc raises ParseError, and on odd input others
                self._refuse(who, "", "malformed", f"not an OSC packet ({len(data)} bytes): {exc}"[:300])
                return
            if not messages:  # a legal, empty bundle: nothing to do, but every datagram is accounted for
                self._ignore("empty_bundle")
            for message in messages:
                bad = _unknown_tags(message.dgram)
                if bad:  # python-osc skips type tags it does not know; a skipped argument is no argument
                    self._count("messages")
                    self._refuse(who, message.address, "malformed", f"{message.address}: unknown OSC type tag {bad!r}")
                    continue
                self._message(message.address, list(message.params), host, port, who)
        except Exception:
            log.exception("OSC inbound: unexpected error on a packet from %s", who)
            self._refuse(who, "", "internal_error", "unexpected error; see the server log")
        finally:
            self._count("datagrams")

    def _message(self, address: str, args: list[Any], host: str, port: int, who: str) -> None:
        self._count("messages")
        outcome = route(address, args)
        if isinstance(outcome, Refuse):
            self._refuse(who, address, outcome.code, outcome.message)
            return
        if isinstance(outcome, Ignore):
            self._ignore(outcome.reason)
            return
        if outcome.debounce:
            now = self.clock()
            last = self.last_action.get(address)
            self.last_action[address] = now if last is None or now - last >= REPEAT_WINDOW_S else last
            if last is not None and now - last < REPEAT_WINDOW_S:
                self._ignore("repeat")
                return
        try:
            self._do(outcome, host, port)
        except (InputError, StorageError) as exc:
            self._refuse(who, address, exc.code, exc.message)
            return
        self._count("accepted")
        with self.lock:
            self.last_accepted.append({"at": _now_ms(), "sender": who, "address": address, "args": _plain(args)})

    def _do(self, action: Action, host: str, port: int) -> None:
        if action.kind == "ping":
            self._reply(build("/chgk/pong", _typed(action.body["args"])), (host, port))
            return
        if action.kind in ("subscribe", "unsubscribe"):
            if self.on_subscribe:
                self.on_subscribe(host, action.body.get("port", port), action.kind == "subscribe")
            return
        if action.kind == "graphics":
            self.graphics.apply(action.body, source="osc")
            return
        if action.kind == "rundown":
            if self.rundowns is None:
                raise InputError("no_rundown", "Rundowns are not available on this server.")
            self.rundowns.act("current", action.body, source="osc")
            return
        game = self.sessions.on_air
        if game is None:
            raise InputError("no_game_on_air", "No game is on air: put one on air in the panel first.")
        if action.kind == "undo":
            self.sessions.undo(game, {}, source="osc")
        else:
            self.sessions.execute(game, action.body, source="osc")

    def _reply(self, dgram: bytes, to: tuple[str, int]) -> None:
        if self.reply is None:
            return
        try:
            self.reply(dgram, to)
        except OSError as exc:
            log.info("OSC pong to %s:%s failed: %s", to[0], to[1], exc)

    # counting --------------------------------------------------------------------------------------

    def _count(self, key: str) -> None:
        with self.lock:
            self.counters[key] += 1

    def _ignore(self, reason: str) -> None:
        with self.lock:
            self.counters["ignored"] += 1
            self.reasons[reason] += 1

    def _refuse(self, who: str, address: str, code: str, message: str) -> None:
        with self.lock:
            self.counters["refused"] += 1
            self.reasons[code] += 1
            self.last_errors.append({"at": _now_ms(), "sender": who, "address": address[:200],
                                     "code": code, "message": message})
            start, logged = self._log_window
            now = time.monotonic()
            if now - start > LOG_PERIOD_S:
                if logged > LOG_BURST:
                    log.warning("OSC inbound: %d more refusals not logged in the last %.0f s",
                                logged - LOG_BURST, LOG_PERIOD_S)
                start, logged = now, 0
            self._log_window = (start, logged + 1)
        if logged < LOG_BURST:
            log.warning("OSC from %s refused (%s): %s", who, code, message)

    def view(self) -> dict[str, Any]:
        with self.lock:
            return {"counters": {k: self.counters[k] for k in ("datagrams", "messages", "accepted", "ignored", "refused")},
                    "reasons": dict(self.reasons), "last_errors": list(self.last_errors)[::-1],
                    "last_accepted": list(self.last_accepted)[::-1], "allow": list(self.allow)}


KNOWN_TAGS = frozenset("ihfdsbrmtTFN[]")


def _unknown_tags(dgram: bytes) -> str:
    """The type tags python-osc would silently skip ("" when all are known)."""
    end = dgram.find(b"\0")
    start = (end + 4) & ~3
    if end < 0 or start >= len(dgram) or dgram[start:start + 1] != b",":
        return ""  # no type tag string (OSC 1.0 without tags): no arguments
    stop = dgram.find(b"\0", start)
    tags = dgram[start + 1:stop if stop >= 0 else len(dgram)].decode("latin-1")
    return "".join(sorted(set(tags) - KNOWN_TAGS))


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _plain(args: list[Any]) -> list[Any]:
    return [a if isinstance(a, (str, int, float, bool)) or a is None else repr(a) for a in args][:16]


FLOAT32_MAX = 3.4028234663852886e38


def _typed(args: list[Any]) -> list[tuple[str, Any]]:
    """Echo a ping's simple arguments back with their own types."""
    out: list[tuple[str, Any]] = []
    for a in args[:16]:
        if isinstance(a, bool):
            out.append(("bool", a))
        elif isinstance(a, int) and -(2**31) <= a < 2**31:
            out.append(("int", a))
        elif isinstance(a, float):
            # a double beyond float32's range (sent with type tag d) goes back as a double
            out.append(("float" if abs(a) <= FLOAT32_MAX or a != a else "double", a))
        elif isinstance(a, str):
            out.append(("string", a))
    return out


class Receiver:
    """A plain UDP socket and a recv loop in a background task (not python-osc's servers)."""

    def __init__(self, host: str, port: int, inbound: Inbound) -> None:
        self.host, self.port, self.inbound = host, port, inbound
        self.sock: socket.socket | None = None
        self.error: str | None = None

    @property
    def address(self) -> str:
        if self.sock is not None:
            host, port = self.sock.getsockname()[:2]
            return f"{host}:{port}"
        return f"{self.host}:{self.port}"

    def open(self) -> bool:
        try:
            family, kind, proto, _, addr = socket.getaddrinfo(self.host, self.port, type=socket.SOCK_DGRAM)[0]
            sock = socket.socket(family, kind, proto)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)  # absorb bursts from surfaces
            sock.bind(addr)
        except OSError as exc:
            self.error = f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}"
            log.error("OSC: %s", self.error)
            return False
        self.sock = sock
        self.inbound.reply = lambda dgram, to: sock.sendto(dgram, to)
        log.info("OSC: listening on %s", self.address)
        return True

    def run(self, sleep: Callable[[float], None]) -> None:
        assert self.sock is not None
        handled = 0
        while True:
            try:
                data, sender = self.sock.recvfrom(65535)
            except OSError as exc:  # e.g. ICMP from an earlier pong to a closed port
                log.debug("OSC receive: %s", exc)
                sleep(0)
                continue
            self.inbound.handle(data, sender)
            handled += 1
            if handled % 32 == 0:  # under a flood, let HTTP and the clock run too
                sleep(0)
