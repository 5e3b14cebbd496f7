"""One message to every overlay: framed once, written straight to each idle websocket.

python-engineio sends to each client from that client's own writer task: a queue put, a task
switch, a websocket frame built and a send — 35–60 µs of CPU per client under eventlet, ~25 ms
of one core for 500 overlays, more than a 60 Hz frame (docs/PERFORMANCE.md). Every overlay in a
room gets the same bytes, so under eventlet we build the frame once and put it into each idle
socket's kernel buffer directly (a few µs per client).

A client takes the direct path only when nothing can overtake or interleave: its websocket has
finished upgrading, engineio's queue for it is empty and its send lock is free. Any other client
— long-polling, mid-upgrade, a writer busy, another async mode — gets the packet through engineio
as before, in order behind what it already has queued. Compression is not negotiated: the same
frame has to suit every overlay.
"""
from __future__ import annotations

import struct
from typing import Any

from engineio import packet as eio_packet
from socketio import packet as sio_packet


class Fanout:
    """Knows each websocket by its Engine.IO sid; `emit` sends one event to rooms of a namespace."""

    def __init__(self) -> None:
        self.server: Any = None  # socketio.Server
        self.sockets: dict[str, tuple[Any, Any]] = {}  # eio sid -> (engineio Socket, eventlet websocket)
        self.direct = 0  # counters, for the benches and the tests
        self.queued = 0
        self._spawn: Any = None

    def install(self, server: Any) -> None:
        """Hook the websocket transport of an eventlet-mode server; other modes keep engineio's path."""
        self.server = server
        eio = server.eio
        if eio.async_mode != "eventlet":
            return
        import eventlet

        self._spawn = eventlet.spawn_n
        base = eio._async["websocket"]
        sockets = self.sockets

        class TrackedWebSocket(base):  # type: ignore[misc, valid-type]
            """engineio's eventlet websocket, registered under its sid while it is open."""

            def __init__(self, handler: Any, eio_server: Any) -> None:
                sock = handler.__self__  # handler is the engineio Socket's bound method

                def tracked(ws: Any) -> Any:
                    sockets[sock.sid] = (sock, ws)
                    try:
                        return handler(ws)
                    finally:
                        if sockets.get(sock.sid, (None, None))[1] is ws:
                            del sockets[sock.sid]

                super().__init__(tracked, eio_server)

            def _negotiate_permessage_deflate(self, extensions: Any) -> None:
                # Chromium offers compression with per-connection context: every overlay would
                # need its own deflate of the same ~2 kB, costing more CPU than it saves on a LAN.
                return None

        # a copy: the driver's dict is shared by every engineio server in the process
        eio._async = dict(eio._async, websocket=TrackedWebSocket)

    def emit(self, event: str, data: Any, namespace: str, rooms: list[str] | None = None) -> None:
        """Send to every client in any of `rooms` (each once), or in the whole namespace."""
        server = self.server
        encoded = server.packet_class(sio_packet.EVENT, namespace=namespace, data=[event, data]).encode()
        pkt = eio_packet.Packet(eio_packet.MESSAGE, encoded)
        frame = _text_frame(pkt.encode()) if isinstance(encoded, str) else None
        for _sid, eio_sid in server.manager.get_participants(namespace, rooms or None):
            if frame is not None and self._write(eio_sid, frame):
                self.direct += 1
                continue
            self.queued += 1
            try:
                server.eio.send_packet(eio_sid, pkt)
            except Exception:  # noqa: BLE001 - a client that vanished mid-loop must not stop the rest
                pass

    def has_websocket(self, eio_sid: str) -> bool:
        """The client is on a websocket (eventlet: one this module writes to)."""
        entry = self.sockets.get(eio_sid)
        if entry is not None:
            return entry[0].upgraded
        sock = self.server.eio.sockets.get(eio_sid)
        return sock is not None and sock.upgraded

    def _write(self, eio_sid: str, frame: bytes) -> bool:
        """Put the frame into the client's socket now, or say False to let engineio queue it.

        Nothing here yields to another green thread, so what is checked still holds at the send.
        """
        entry = self.sockets.get(eio_sid)
        if entry is None:
            return False
        sock, ws = entry
        lock = ws._sendlock  # eventlet's guard against interleaved frames: held while a send waits
        if (sock.closed or sock.upgrading or not sock.upgraded or ws.websocket_closed
                or sock.queue.qsize() or lock.locked()):
            return False
        try:
            sent = ws.socket.fd.send(frame)
        except BlockingIOError:
            sent = 0
        except OSError:
            return False  # engineio's writer meets the same error and closes the socket
        if sent < len(frame):  # the buffer is full: finish in the background, holding the lock
            lock.acquire()
            self._spawn(_finish, ws, lock, frame[sent:])
        return True


def _finish(ws: Any, lock: Any, rest: bytes) -> None:
    try:
        ws.socket.sendall(rest)
    except OSError:
        pass  # the reader side sees the dead connection and closes it
    finally:
        lock.release()


def _text_frame(text: str) -> bytes:
    """An unmasked, final websocket text frame (RFC 6455 §5.2), as a server sends it."""
    payload = text.encode("utf-8")
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", 0x81, n)
    elif n < 65536:
        header = struct.pack("!BBH", 0x81, 126, n)
    else:
        header = struct.pack("!BBQ", 0x81, 127, n)
    return header + payload


fanout = Fanout()
