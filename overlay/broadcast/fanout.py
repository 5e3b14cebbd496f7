"""One message to every overlay: framed once, written straight to each idle websocket.

python-engineio sends to each client from that client's own writer task: a queue put, a task
switch, a websocket frame built and a send — 35–60 µs of CPU per client under eventlet, ~25 ms
of one core for 500 overlays, more than a 60 Hz frame (docs/PERFORMANCE.md). Every overlay in a
room gets the same bytes, so under eventlet and gevent we build the frame once and put it into
each idle socket's kernel buffer directly (a few µs per client).

A websocket opened directly is lean.py's object, whose own `write` keeps in order what its
kernel buffer cannot take yet. An upgraded one takes the direct path only when nothing can
overtake or interleave: its websocket has finished upgrading, engineio's queue for it is empty
and its send lock is free. Any other client — long-polling, mid-upgrade, a writer busy,
threading mode — gets the packet through engineio as before, in order behind what it already
has queued. Compression is not negotiated: the same
frame has to suit every overlay.

On the writer under eventlet (`install(..., background=True)`) a message for more than `INLINE`
clients is sent from a green thread of its own, `CHUNK` sockets at a time, letting other green
threads run between chunks: with 5,000 overlays the loop takes ~60 ms of CPU, and the operator's
answer (told after the command's fsync, which runs in a real thread meanwhile) no longer waits
for the last overlay. Messages are sent in the order they were given, each to every client
before the next begins: a small one waits behind a big one still going out.
"""
from __future__ import annotations

import logging
import socket
from collections import deque
from typing import Any, Container

from engineio import packet as eio_packet
from socketio import packet as sio_packet

from overlay.broadcast.wsframe import server_frame

log = logging.getLogger(__name__)


class Fanout:
    """Knows each websocket by its Engine.IO sid; `emit` sends one event to rooms of a namespace."""

    def __init__(self) -> None:
        self.server: Any = None  # socketio.Server
        # eio sid -> (engineio Socket, its websocket, the raw socket's `send`, the websocket's send lock)
        self.sockets: dict[str, tuple[Any, Any, Any, Any]] = {}
        self.direct = 0  # counters, for the benches and the tests
        self.queued = 0
        self._spawn: Any = None
        # background: messages waiting for the fan-out's green thread, and how it yields
        self._jobs: deque | None = None
        self._yield: Any = None
        self._working = False

    def install(self, server: Any, background: bool = False) -> None:
        """Hook the websocket transport of an eventlet- or gevent-mode server; threading keeps
        engineio's path. `background` (eventlet): `emit` returns at once and a green thread of its
        own sends, yielding between chunks."""
        self.server = server
        eio = server.eio
        if eio.async_mode == "eventlet":
            import eventlet

            from . import held, lean

            self._spawn = eventlet.spawn_n
            if background:
                self._jobs, self._yield = deque(), eventlet.sleep
            tracked = _eventlet_websocket(eio._async["websocket"], self.sockets)
            eio.sockets = held.Sockets(eio.sockets)  # one green thread per websocket (held.py)
            lean.install(eio, self.sockets)  # none for a websocket opened directly (lean.py)
        elif eio.async_mode == "gevent" and _gevent_websocket_in_use():
            import gevent

            self._spawn = gevent.spawn
            tracked = _gevent_websocket(eio._async["websocket"], self.sockets)
        else:
            return
        # a copy: the driver's dict is shared by every engineio server in the process
        eio._async = dict(eio._async, websocket=tracked)

    def emit(self, event: str, data: Any, namespace: str, rooms: list[str] | None = None,
             alt: tuple[Container[str], str, Any] | None = None) -> None:
        """Send to every client in any of `rooms` (each once), or in the whole namespace.
        `alt` = (sids, event, data): the clients whose sid is in `sids` get that event instead
        (an overlay that asked for patches); each of the two messages is framed once.

        The clients are the rooms' members now; in the background they are sent to after the
        messages given before this one."""
        main = self._packet(event, data, namespace)
        other = self._packet(alt[1], alt[2], namespace) if alt else None
        targets = list(self.server.manager.get_participants(namespace, rooms or None))
        job = (main, other, alt[0] if alt else ())
        if self._jobs is None or (not self._working and len(targets) <= INLINE):
            self._send(targets, *job)  # a few milliseconds: here, before the fsync begins
            return
        self._jobs.append((targets, *job))
        if not self._working:
            self._working = True
            self._spawn(self._work)

    def _work(self) -> None:
        """The background fan-out: each message to all of its clients, in the order given."""
        try:
            while self._jobs:
                targets, main, other, chosen = self._jobs.popleft()
                for at in range(0, len(targets), CHUNK):
                    if at:
                        self._yield()  # the operator's answer, a panel's GET, the next command
                    chunk = targets[at:at + CHUNK]
                    try:
                        self._send(chunk, main, other, chosen)
                    except Exception:  # noqa: BLE001 - the other clients must still get it
                        log.exception("the fan-out of a message failed for %d clients", len(chunk))
        finally:
            self._working = False

    def settle(self) -> None:
        """Returns once no message is going out in the background: a message sent to an overlay
        by another way (a `follow`'s answer, a rundown's `preview`) must not overtake one that is."""
        while self._working:
            self._yield()

    def _send(self, targets: Any, main: tuple[Any, bytes | None], other: tuple[Any, bytes | None] | None,
              chosen: Container[str]) -> None:
        """Each websocket's raw `send` and send lock come from its entry in `sockets`, the checks
        read attributes rather than call methods: at 5,000 clients the loop is one syscall per
        socket and the little Python around it (docs/PERFORMANCE.md §13). Nothing in the loop
        yields to another green thread, so what is checked still holds at the send."""
        get = self.sockets.get
        send_packet = self.server.eio.send_packet
        direct = queued = 0
        try:
            for sid, eio_sid in targets:
                pkt, frame = other if other is not None and sid in chosen else main
                entry = get(eio_sid)
                if entry is not None and frame is not None:
                    # idle: upgraded, not closed, nothing queued in engineio, send lock free
                    sock, ws, send, lock = entry
                    if (lock.counter > 0 and sock.upgraded and not sock.queue.queue and not (
                            sock.closed or sock.upgrading or ws.websocket_closed)):
                        try:
                            sent = send(frame)
                        except BlockingIOError:
                            sent = 0
                        except OSError:
                            sent = -1  # engineio's writer meets the same error and closes the socket
                        if sent >= 0:
                            direct += 1
                            if sent < len(frame):  # the buffer is full: finish in the background,
                                # holding the lock. It is free (checked above, nothing yielded since):
                                # taken without waiting, which under eventlet would let a writer that
                                # waits for it (the reader's pong) in between the frame's two halves
                                lock.acquire(blocking=False)
                                self._spawn(_finish, ws, lock, frame[sent:])
                            continue
                queued += 1
                try:
                    send_packet(eio_sid, pkt)
                except Exception:  # noqa: BLE001 - a client that vanished mid-loop must not stop the rest
                    pass
        finally:
            self.direct += direct
            self.queued += queued

    def _packet(self, event: str, data: Any, namespace: str) -> tuple[Any, bytes | None]:
        """The Engine.IO packet for engineio's path and, for text, its websocket frame."""
        encoded = self.server.packet_class(sio_packet.EVENT, namespace=namespace, data=[event, data]).encode()
        pkt = eio_packet.Packet(eio_packet.MESSAGE, encoded)
        return pkt, (server_frame(pkt.encode()) if isinstance(encoded, str) else None)

    @property
    def waited(self) -> int:
        """Frames to direct websockets that waited for their client to read (lean.py)."""
        from .lean import Home

        return Home.waited

    def has_websocket(self, eio_sid: str) -> bool:
        """The client is on a websocket (eventlet, gevent: one this module writes to)."""
        entry = self.sockets.get(eio_sid)
        if entry is not None:
            return entry[0].upgraded
        sock = self.server.eio.sockets.get(eio_sid)
        return sock is not None and sock.upgraded


_NONE = (None, None, None, None)
CHUNK = 250  # clients between two yields of the background fan-out: ~3 ms of CPU
# Up to this many clients (~12 ms of CPU) a message is sent inline, when nothing waits in the
# background: at 500 overlays the background's thread switches and the fsync's kernel work beside
# the loop made the last socket 3 – 4 ms later (docs/PERFORMANCE.md §13).
INLINE = 1000


def _eventlet_websocket(base: Any, sockets: dict) -> Any:
    from .held import websocket_handler

    class TrackedWebSocket(base):  # type: ignore[misc, valid-type]
        """engineio's eventlet websocket, registered under its sid while it is open, served by
        held.py's handler (one green thread) instead of engineio's (three)."""

        def __init__(self, handler: Any, eio_server: Any) -> None:
            sock = handler.__self__  # handler is the engineio Socket's bound method

            def tracked(ws: Any) -> Any:
                sockets[sock.sid] = (sock, ws, ws.socket.fd.send, ws._sendlock)
                try:
                    return websocket_handler(sock, ws)
                finally:
                    if sockets.get(sock.sid, _NONE)[1] is ws:
                        del sockets[sock.sid]

            super().__init__(tracked, eio_server)

        def _negotiate_permessage_deflate(self, extensions: Any) -> None:
            # Chromium offers compression with per-connection context: every overlay would
            # need its own deflate of the same ~2 kB, costing more CPU than it saves on a LAN.
            return None

    return TrackedWebSocket


def _gevent_websocket_in_use() -> bool:
    """engineio speaks websocket through gevent-websocket (what `serve` runs) when it is
    installed, else through simple-websocket, whose frames we cannot get between."""
    from engineio.async_drivers import gevent as driver

    return getattr(driver, "SimpleWebSocketWSGI", None) is None


class _GeventSocket:
    """What `_write` and `_finish` need, as eventlet's websocket has it: `fd`, the real
    non-blocking socket, and a cooperative `sendall`."""

    def __init__(self, sock: Any) -> None:
        self.fd = sock._sock  # gevent keeps the OS socket non-blocking and waits on its own
        self.sendall = sock.sendall


def _gevent_websocket(base: Any, sockets: dict) -> Any:
    from gevent.lock import Semaphore

    class TrackedWebSocket(base):  # type: ignore[misc, valid-type]
        """engineio's gevent-websocket wrapper with eventlet's guard against interleaved
        frames: every send of engineio's writer holds `_sendlock`, as a direct write checks it
        (gevent-websocket has no lock of its own), and registered under its sid while open.
        gevent-websocket negotiates no compression."""

        def __init__(self, handler: Any, eio_server: Any) -> None:
            super().__init__(handler, eio_server)
            self._engineio_socket = handler.__self__
            self._sendlock = Semaphore()
            self.socket: _GeventSocket | None = None

        @property
        def websocket_closed(self) -> bool:
            ws = getattr(self, "_sock", None)
            return ws is None or ws.closed or self.socket is None

        def __call__(self, environ: dict, start_response: Any) -> Any:
            ws = environ.get("wsgi.websocket")
            if ws is not None and ws.stream is not None:
                self.socket = _GeventSocket(ws.stream.handler.socket)
            sid = self._engineio_socket.sid
            # without a socket `websocket_closed` is true and the send is never called
            send = self.socket.fd.send if self.socket is not None else None
            sockets[sid] = (self._engineio_socket, self, send, self._sendlock)
            try:
                return super().__call__(environ, start_response)
            finally:
                if sockets.get(sid, _NONE)[1] is self:
                    del sockets[sid]

        def send(self, message: Any) -> Any:
            with self._sendlock:
                return super().send(message)

    return TrackedWebSocket


def _finish(ws: Any, lock: Any, rest: bytes) -> None:
    try:
        ws.socket.sendall(rest)
    except OSError:
        # reset, or timed out partway: a frame cut short must be the connection's last, or the
        # next one would be read as its rest. The reader then sees the end and closes the socket.
        try:
            ws.socket.fd.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    finally:
        lock.release()


fanout = Fanout()
