"""A websocket opened directly, held by the hub alone: no green thread, no request kept.

Even with held.py a websocket costs ~43 kB under eventlet (docs/PERFORMANCE.md §13): the WSGI
request's objects (its protocol, buffers, headers and environ), eventlet's websocket, engineio's
`Socket` with its queue, events and timers, and the green thread parked in the read with its
saved stacks. A client that opens its websocket directly (`transport=websocket` in its first
request: the overlay pages, static/lib/client.js; Node and Python clients told to; the benches)
is served here instead; one that long-polls first and upgrades keeps held.py's path. Its
handshake is answered inside the request, the connection is taken out of eventlet.wsgi (whose
request then ends), and from then on the hub calls this module when the socket is readable. One
green thread pings every such client of a server, each one interval after its last ping. TLS
served by the process itself keeps engineio's websocket.

Above it nothing changes: the object stands in engineio's `sockets` as its `Socket` would (send,
close, the flags engineio and python-socketio read), python-socketio keeps its own entries and a
copy of the request's environ without eventlet's objects, and fanout.py writes frames straight
to it. Writes never wait: what the kernel does not take at once waits in order
and goes out when the socket is writable.
"""
from __future__ import annotations

import base64
import hashlib
import io
import logging
import os
import struct
import time
from collections import deque
from typing import Any, Callable

import eventlet
from eventlet import hubs, patcher, wsgi
from eventlet.greenio import GreenSocket
from engineio import packet as eio_packet
from greenlet import getcurrent

from overlay.broadcast.wsframe import server_frame

log = logging.getLogger(__name__)
_socket = patcher.original("socket")

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 §1.3
READ_SIZE = 65536
# A client that leaves this much unread is closed as stuck (it reconnects to the current state);
# engineio's queue had no bound. A burst of 80 rundown changes of 90 kB each fits.
MAX_WAITING = 32 * 1024 * 1024
PING_TICK_S = 1.0
# A closed connection's last frames get this long to go out: a client that no longer reads (the
# one a ping timeout closes, typically) must not keep its descriptor and those frames for ever.
CLOSE_GRACE_S = 5.0
PING_FRAME = b"\x81\x012"  # Engine.IO PING in a text frame
CLOSE_FRAME = b"\x88\x02\x03\xe8"  # websocket close, 1000
NO_BODY = io.BytesIO()  # a websocket request has none; Flask may still look


class _Nothing:
    """fanout.py checks that nothing waits in engineio's queue (`sock.queue.queue`): here nothing
    ever does, since `write` itself keeps what must wait behind what waits already."""

    __slots__ = ("queue",)

    def __init__(self) -> None:
        self.queue: tuple = ()


class LeanSocket:
    """engineio's `Socket` for one direct websocket, as far as engineio, python-socketio and
    fanout.py use it, and the websocket itself."""

    __slots__ = ("server", "home", "sid", "sock", "fd", "reader", "writer", "waiting", "unread", "inbuf",
                 "parts", "closing", "closed", "websocket_closed", "due", "pinged")
    upgraded = connected = True
    upgrading = False
    counter = 1  # fanout.py's "send lock free": `write` orders what it is given
    queue = _Nothing()

    def __init__(self, home: Home, sid: str) -> None:
        self.server = home.eio
        self.home = home
        self.sid = sid
        self.sock: Any = None  # until the handshake is written; writes wait meanwhile
        self.fd = -1
        self.reader: Any = None
        self.writer: Any = None
        self.waiting: deque | None = None  # frames (or their rests) the kernel has not taken yet
        self.unread = 0  # their bytes
        self.inbuf = b""
        self.parts: list | None = None  # a fragmented message's frames so far
        self.closing = self.closed = self.websocket_closed = False
        self.due = 0.0  # monotonic time of the next ping
        self.pinged = 0.0  # when the unanswered ping went out, or 0

    # engineio's Socket ------------------------------------------------------------------------

    def send(self, pkt: Any) -> None:
        if not self.closed:
            self.write(server_frame(pkt.encode()))

    def close(self, wait: bool = True, abort: bool = False, reason: Any = None) -> None:
        """engineio's order: the disconnect event, the CLOSE packet unless aborted, then the end."""
        if self.closed or self.closing:
            return
        self.closing = True
        try:
            self.server._trigger_event("disconnect", self.sid, reason or self.server.reason.SERVER_DISCONNECT,
                                       run_async=False)
        finally:
            if not abort:
                self.write(server_frame(eio_packet.Packet(eio_packet.CLOSE).encode()))
            self.closed = True
            self._end(flush=not abort)

    def check_ping_timeout(self) -> bool:
        return not self.closed  # the pinger below closes the silent ones

    def handle_get_request(self, environ: dict, start_response: Any) -> Any:
        """Never reached: engineio refuses an HTTP request for an upgraded socket first."""
        return self.server._bad_request("Unexpected HTTP request")

    handle_post_request = handle_get_request

    # writing ----------------------------------------------------------------------------------

    def write(self, frame: bytes) -> int:
        """Queue nothing the kernel takes at once. Returns len(frame) (fanout.py: all sent, or
        kept to send in order), or -1 once the connection is lost."""
        if self.closed and self.sock is None:
            return -1
        if self.waiting is None and self.sock is not None:
            try:
                sent = self.sock.send(frame)
            except BlockingIOError:
                sent = 0
            except OSError:
                self._lost()
                return -1
            if sent == len(frame):
                return sent
            rest = frame[sent:]
        else:
            rest = frame
        if self.waiting is None:
            self.waiting = deque()
        self.waiting.append(rest)
        self.unread += len(rest)
        if self.sock is not None:
            Home.waited += 1
        if self.unread > MAX_WAITING:
            log.info("%s: %d bytes unread by the client, closing connection", self.sid, MAX_WAITING)
            self._lost()
            return -1
        if self.sock is not None and self.writer is None:
            self.writer = _listen(hubs.get_hub().WRITE, self.fd, self._writable)
        return len(frame)

    def _writable(self, _fd: int) -> None:
        if self.sock is None:  # shut by another callback of the same turn of the hub
            return
        try:
            waiting = self.waiting
            while waiting:
                chunk = waiting[0]
                sent = self.sock.send(chunk)
                self.unread -= sent
                if sent < len(chunk):
                    waiting[0] = chunk[sent:]
                    return
                waiting.popleft()
            self.waiting, self.unread = None, 0
            self._stop_writing()
            if self.closed:
                self._shut()
        except BlockingIOError:
            pass
        except Exception:  # noqa: BLE001 - a reset: the hub must never see it
            self._lost()

    def _stop_writing(self) -> None:
        if self.writer is not None:
            hubs.get_hub().remove(self.writer)
            self.writer = None

    # reading ----------------------------------------------------------------------------------

    def _readable(self, _fd: int) -> None:
        """Called by the hub: read what is there, act on each whole frame."""
        if self.sock is None:  # shut by another callback of the same turn of the hub
            return
        try:
            data = self.sock.recv(READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._lost()
            return
        try:
            self._frames(self.inbuf + data if self.inbuf else data)
        except _ProtocolError as exc:
            log.info("%s: %s, closing connection", self.sid, exc)
            self._lost()
        except Exception:  # noqa: BLE001 - logged; the hub must never see it
            log.exception("%s: reading the websocket failed", self.sid)
            self._lost()

    def _frames(self, buf: bytes) -> None:
        """RFC 6455 §5: masked client frames; data frames may come in fragments."""
        at, end, limit = 0, len(buf), self.server.max_http_buffer_size
        # `_lost` (a close frame, an Engine.IO CLOSE) stops the reading at once, though its close
        # runs later in a green thread: what came behind it is not the client's any more
        while self.reader is not None and not self.closing and end - at >= 2:
            b0, b1 = buf[at], buf[at + 1]
            if b0 & 0x70:
                raise _ProtocolError("a websocket extension bit, none negotiated")
            if not b1 & 0x80:
                raise _ProtocolError("an unmasked client frame")
            size, head = b1 & 0x7F, 2
            if size == 126:
                if end - at < 4:
                    break
                size, head = struct.unpack_from("!H", buf, at + 2)[0], 4
            elif size == 127:
                if end - at < 10:
                    break
                size, head = struct.unpack_from("!Q", buf, at + 2)[0], 10
            if size > limit:
                raise _ProtocolError("packet is too large")
            if end - at < head + 4 + size:
                break
            mask = buf[at + head:at + head + 4]
            payload = _unmask(buf[at + head + 4:at + head + 4 + size], mask)
            at += head + 4 + size
            self._frame(b0 & 0x80, b0 & 0x0F, payload)
        self.inbuf = buf[at:] if at < end else b""
        if len(self.inbuf) > limit + 14:
            raise _ProtocolError("packet is too large")

    def _frame(self, fin: int, opcode: int, payload: bytes) -> None:
        if opcode >= 0x8:  # control frames are never fragmented
            if not fin or len(payload) > 125:
                raise _ProtocolError("a fragmented or long control frame")
            if opcode == 0x8:  # close: answered with the client's code (RFC 6455 §5.5.1), then closed
                code = payload[:2] if len(payload) >= 2 else b""  # one byte is no code
                self.write(bytes((0x88, len(code))) + code)
                self._lost()
            elif opcode == 0x9:
                self.write(bytes((0x8A, len(payload))) + payload)  # pong, same payload
            elif opcode != 0xA:  # a pong needs nothing; 0xB – 0xF are reserved
                raise _ProtocolError(f"websocket opcode {opcode}")
            return
        if opcode == 0x0:
            if self.parts is None:
                raise _ProtocolError("a continuation of nothing")
            self.parts.append(payload)
        elif opcode in (0x1, 0x2):
            if self.parts is not None:
                raise _ProtocolError("a new message inside a fragmented one")
            self.parts = [bytes((opcode,)), payload]
        else:
            raise _ProtocolError(f"websocket opcode {opcode}")
        if sum(map(len, self.parts)) - 1 > self.server.max_http_buffer_size:
            raise _ProtocolError("packet is too large")
        if fin:
            parts, self.parts = self.parts, None
            data = b"".join(parts[1:])
            if parts[0] == b"\x01":
                try:
                    self._receive(data.decode("utf-8"))
                except UnicodeDecodeError:
                    raise _ProtocolError("a text frame that is not UTF-8") from None
            else:
                self._receive(data)

    def _receive(self, data: str | bytes) -> None:
        """engineio's `Socket.receive`, in the hub: handlers run in green threads of their own."""
        try:
            pkt = eio_packet.Packet(encoded_packet=data)
        except Exception:  # noqa: BLE001 - not Engine.IO
            raise _ProtocolError("undecodable packet") from None
        kind = pkt.packet_type
        if kind == eio_packet.PONG:
            self.pinged = 0.0
        elif kind == eio_packet.MESSAGE:
            eventlet.spawn_n(self.server._trigger_event, "message", self.sid, pkt.data)
        elif kind == eio_packet.UPGRADE:
            self.send(eio_packet.Packet(eio_packet.NOOP))
        elif kind == eio_packet.CLOSE:
            self._lost(self.server.reason.CLIENT_DISCONNECT)
        # anything else (a PING from a v3 client) engineio ignores too

    # the end ----------------------------------------------------------------------------------

    def _lost(self, reason: Any = None) -> None:
        """The client went, broke the protocol or stopped reading: stop reading now, and close
        (the disconnect handlers run application code, so not in the hub)."""
        if self.reader is not None:
            hubs.get_hub().remove(self.reader)
            self.reader = None
        self.websocket_closed = True
        if not (self.closing or self.closed):
            reason = reason or self.server.reason.TRANSPORT_CLOSE
            if getcurrent() is hubs.get_hub().greenlet:
                eventlet.spawn_n(self.close, False, True, reason)
            else:
                self.close(False, True, reason)
        elif self.closed:
            self._end(flush=False)

    def _end(self, flush: bool) -> None:
        """Forget the client; close its socket now, or once what waits has gone out."""
        self.websocket_closed = True
        self.home.forget(self)
        if self.sock is None:
            return
        if self.reader is not None:
            hubs.get_hub().remove(self.reader)
            self.reader = None
        if flush:
            self.write(CLOSE_FRAME)
            if self.waiting:  # _writable shuts it once they are out, or the grace ends first
                hubs.get_hub().schedule_call_global(CLOSE_GRACE_S, self._shut)
                return
        self._shut()

    def _shut(self) -> None:
        self._stop_writing()
        self.waiting, self.unread = None, 0
        sock, self.sock = self.sock, None
        if sock is not None:
            hubs.notify_close(self.fd)
            try:
                sock.close()
            except OSError:
                pass


class _ProtocolError(Exception):
    pass


def _ignore(*_: Any) -> None:
    pass


def _listen(evtype: Any, fd: int, cb: Callable[[int], None]) -> Any:
    hub = hubs.get_hub()
    listener = hub.add(evtype, fd, cb, _ignore, _ignore)
    listener.greenlet = hub.greenlet  # not the green thread that asked: it would be kept after it ends
    return listener


def _unmask(data: bytes, mask: bytes) -> bytes:
    if not data:
        return data
    n = len(data)
    key = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "little") ^ int.from_bytes(key, "little")).to_bytes(n, "little")


# the handshake ---------------------------------------------------------------------------------

class Home:
    """One engineio server's direct websockets: where they are registered, and their pinger."""

    held = 0  # direct websockets held by this process, every server's
    waited = 0  # frames (or their rests) the kernel did not take at once, for the status
    fits: Callable[[], bool] | None = None  # serve(): whether one more connection fits its cap

    def __init__(self, eio: Any, fanout_sockets: dict) -> None:
        self.eio = eio
        self.fanout_sockets = fanout_sockets
        self.sockets: dict[str, LeanSocket] = {}
        self.pinging = False

    def add(self, lean: LeanSocket) -> None:
        self.sockets[lean.sid] = lean
        self.fanout_sockets[lean.sid] = (lean, lean, lean.write, lean)
        Home.held += 1
        if not self.pinging:
            self.pinging = True
            eventlet.spawn_n(self._ping)

    def forget(self, lean: LeanSocket) -> None:
        if self.sockets.get(lean.sid) is lean:
            del self.sockets[lean.sid]
            Home.held -= 1
        if self.fanout_sockets.get(lean.sid, (None,))[0] is lean:
            del self.fanout_sockets[lean.sid]
        if self.eio.sockets.get(lean.sid) is lean:
            del self.eio.sockets[lean.sid]

    def _ping(self) -> None:
        """engineio's ping for every direct websocket: each client one interval after its last,
        a client silent for the timeout after a ping closed. Ends when none is left."""
        eio = self.eio
        try:
            while self.sockets:
                eventlet.sleep(PING_TICK_S)
                now = time.monotonic()
                for n, lean in enumerate(list(self.sockets.values())):
                    if n and not n % 500:
                        eventlet.sleep(0)
                    if lean.closing or lean.closed:
                        continue
                    if lean.pinged and now - lean.pinged > eio.ping_timeout:
                        log.info("%s: Client is gone, closing socket", lean.sid)
                        eventlet.spawn_n(lean.close, False, False, eio.reason.PING_TIMEOUT)
                    elif not lean.pinged and now >= lean.due:
                        lean.pinged, lean.due = now, now + eio.ping_interval
                        lean.write(PING_FRAME)
        finally:
            self.pinging = False


def install(eio: Any, fanout_sockets: dict) -> None:
    """Serve an eventlet engineio server's direct websockets here."""
    fallback = eio._handle_connect
    home = Home(eio, fanout_sockets)

    def handle_connect(environ: dict, start_response: Any, transport: str, jsonp_index: Any = None) -> Any:
        sock = _plain_socket(environ) if transport == "websocket" else None
        key = environ.get("HTTP_SEC_WEBSOCKET_KEY", "")
        if sock is None or environ.get("HTTP_SEC_WEBSOCKET_VERSION") != "13" or not 0 < len(key) <= 64:
            return fallback(environ, start_response, transport, jsonp_index)
        if Home.fits is not None and not Home.fits():
            return {"status": "503 Service Unavailable", "headers": [("Content-Type", "text/plain")],
                    "response": b"Too many connections: try again later."}
        if eio.start_service_task:  # as engineio: its task sweeps closed sockets of every kind
            eio.start_service_task = False
            eio.service_task_handle = eio.start_background_task(eio._service_task)
        sid = eio.generate_id()
        lean = LeanSocket(home, sid)
        dict.__setitem__(eio.sockets, sid, lean)  # not held.Sockets' hook: no ping of engineio's
        lean.send(eio_packet.Packet(eio_packet.OPEN, {
            "sid": sid, "upgrades": [], "pingTimeout": int(eio.ping_timeout * 1000),
            "pingInterval": int(eio.ping_interval + eio.ping_interval_grace_period) * 1000,
            "maxPayload": eio.max_http_buffer_size}))
        ret = eio._trigger_event("connect", sid, _trimmed(environ), run_async=False)
        if ret is not None and ret is not True:
            home.forget(lean)
            log.warning("Application rejected connection")
            return eio._unauthorized(ret or None)
        accept = base64.b64encode(hashlib.sha1(key.encode("latin-1") + GUID).digest()).decode()
        wsgi.WSGI_LOCAL.already_handled = True  # the response is ours, not eventlet.wsgi's
        try:
            sock.sendall((f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          f"Sec-WebSocket-Accept: {accept}\r\n\r\n").encode())
            raw = _socket.socket(fileno=os.dup(sock.fileno()))
        except OSError:
            lean.close(abort=True, reason=eio.reason.TRANSPORT_CLOSE)
            return []
        sock.shutdown = _ignore  # eventlet.wsgi ends the request: it closes its descriptor, not the connection
        raw.setblocking(False)
        lean.fd = raw.fileno()
        hubs.notify_opened(lean.fd)  # as eventlet does for a new descriptor: stale listeners go
        lean.due = time.monotonic() + eio.ping_interval
        waiting, lean.waiting, lean.unread, lean.sock = lean.waiting, None, 0, raw
        if lean.closed:  # the connect handler's own code closed it already
            lean._shut()
            return []
        home.add(lean)
        lean.reader = _listen(hubs.get_hub().READ, lean.fd, lean._readable)
        for frame in waiting or ():  # OPEN, and what the connect handler sent, in order
            lean.write(frame)
        return []

    eio._handle_connect = handle_connect


def _plain_socket(environ: dict) -> Any:
    """The request's green socket over plain TCP (TLS keeps engineio's websocket), or None."""
    source = environ.get("eventlet.input")
    sock = source.get_socket() if source is not None and hasattr(source, "get_socket") else None
    if type(sock) is GreenSocket and type(sock.fd) is _socket.socket:
        return sock
    return None


def _trimmed(environ: dict) -> dict:
    """What python-socketio keeps per client and Flask's request context reads: the request's
    environ without eventlet's objects, which hold the connection and its buffers."""
    kept = {k: v for k, v in environ.items() if not k.startswith("eventlet.")}
    kept["wsgi.input"] = NO_BODY
    return kept
