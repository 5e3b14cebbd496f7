"""A websocket upgraded from long-polling costs one green thread under eventlet: the one that
reads it. (One opened directly costs none: lean.py serves it.)

python-engineio (4.x) gives each websocket three: the request's own, which reads; a writer
parked on the socket's packet queue; and a ping sender asleep for the ping interval. At 5,000
overlays that is 15,000 parked greenlets with their saved stacks, events and timers
(docs/PERFORMANCE.md §13). Here the writer lives only while the queue holds packets — nearly
every frame to an overlay goes straight into its socket (overlay/broadcast/fanout.py), the queue
carries the handshake, pings and the rare packet that had to wait — and the ping waits as a
timer of the hub, not in a thread.

What engineio promises is kept: packets leave in the order they were queued, a frame is never
cut by another (each send holds the websocket's send lock), the writer closes the websocket on
a send error or at the queue's end (None), and the reader's loop, the upgrade from long-polling
and the close are engineio's `Socket._websocket_handler`, step for step.
"""
from __future__ import annotations

import time
import types
from typing import Any

import eventlet
from eventlet import queue as green_queue
from eventlet.hubs import get_hub
from engineio import exceptions, packet


class Sockets(dict):
    """engineio's sid → Socket map. A socket entered here pings by timer from the start: engineio
    enters it, then schedules its first ping (engineio.Server._handle_connect)."""

    def __setitem__(self, sid: str, sock: Any) -> None:
        sock.schedule_ping = types.MethodType(schedule_ping, sock)
        super().__setitem__(sid, sock)


def schedule_ping(sock: Any) -> None:
    """engineio's `Socket.schedule_ping`: the next PING one interval after the last PONG."""
    if sock.last_ping:  # only once the previous ping's wait has ended (engineio's rule)
        sock.last_ping = None
        get_hub().schedule_call_global(sock.server.ping_interval, eventlet.spawn_n, _ping, sock)


def _ping(sock: Any) -> None:
    if not sock.closing and not sock.closed:
        sock.last_ping = time.time()
        sock.send(packet.Packet(packet.PING))


class Outbox(green_queue.Queue):
    """A socket's packet queue whose `put` wakes its writer."""

    def __init__(self, wake: Any) -> None:
        super().__init__()
        self._wake = wake

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        super().put(item, block, timeout)
        self._wake()


class Writer:
    """Writes a socket's queued packets from a green thread that exists only while there are any.
    A packet leaves the queue only once it is written: while the writer waits for the send lock
    (a direct write finishing in the background, fanout.py `_finish`) the queue is not empty, so
    no direct write (fanout.py checks the queue is empty and the lock free) can overtake it."""

    def __init__(self, sock: Any, ws: Any) -> None:
        self.ws = ws
        self.task: Any = None
        self.ended = False  # the queue's end came or a send failed: the websocket is closed
        before, self.queue = sock.queue, Outbox(self.wake)
        for _ in range(100):  # a long-poll still to take what ends it: a hub turn or two
            if not (before.queue and before.getters):
                break
            eventlet.sleep(0)
        sock.queue = self.queue
        while before.queue:  # what was queued before the websocket was up, in order
            self.queue.put(before.get(block=False))
            before.task_done()

    def wake(self) -> None:
        if self.task is None:
            self.task = eventlet.spawn(self._drain)

    def join(self) -> None:
        if self.task is not None:
            self.task.wait()

    def _drain(self) -> None:
        queue = self.queue
        try:
            while queue.queue:
                pkt = queue.queue[0]  # taken out once written (the class's docstring)
                queue.task_done()  # as engineio's writer: a close(wait=True) waits for the taking, not the send
                if self.ended:
                    pass  # closed: what is queued after the end is dropped, as engineio's writer had gone
                elif pkt is None:
                    self._end()
                else:
                    try:
                        self.ws.send(pkt.encode())
                    except Exception:  # noqa: BLE001 - engineio's writer: any send error ends the websocket
                        self._end()
                queue.get(block=False)
        finally:
            self.task = None

    def _end(self) -> None:
        self.ended = True
        try:
            self.ws.close()
        except OSError:
            pass


def websocket_handler(sock: Any, ws: Any) -> list:
    """engineio's `Socket._websocket_handler` with the writer above: reads in the request's green
    thread until the client goes, then closes the Engine.IO socket."""
    server = sock.server

    def wait() -> Any:
        data = ws.wait()
        if data and len(data) > server.max_http_buffer_size:
            raise ValueError("packet is too large")
        return data

    for attr in ("_sock", "socket"):  # a read timeout of one ping interval and its timeout
        if hasattr(getattr(ws, attr, None), "settimeout"):
            getattr(ws, attr).settimeout(server.ping_interval + server.ping_timeout)

    if sock.connected:  # an upgrade from long-polling: the probe, then UPGRADE
        sock.upgrading = True  # holds packet sends during the upgrade
        probe = packet.Packet(encoded_packet=wait())
        if probe.packet_type != packet.PING or probe.data != "probe":
            sock.upgrading = False
            return []
        ws.send(packet.Packet(packet.PONG, data="probe").encode())
        sock.queue.put(packet.Packet(packet.NOOP))  # ends the pending long-poll ...
        eventlet.sleep(0)  # ... which takes it now, even if the client sent UPGRADE at once
        if packet.Packet(encoded_packet=wait()).packet_type != packet.UPGRADE:
            sock.upgraded = sock.upgrading = False
            return []
        sock.upgraded, sock.upgrading = True, False
    else:
        sock.connected = sock.upgraded = True

    writer = Writer(sock, ws)
    while True:
        try:
            data = wait()
        except Exception:  # noqa: BLE001 - a reset, a timeout, a frame too large: the client is gone
            break
        if data is None:  # closed by the client
            break
        try:
            pkt = packet.Packet(encoded_packet=data)
        except Exception:  # noqa: BLE001 - not Engine.IO: a line, not a traceback (web/socketlog.py)
            server.logger.info("%s: undecodable packet, closing connection", sock.sid)
            break
        try:
            sock.receive(pkt)
        except exceptions.UnknownPacketError:
            pass
        except exceptions.SocketIsClosedError:
            break
        except Exception:  # noqa: BLE001 - logged, and the connection ends properly
            server.logger.exception("Unknown receive error")
            break
        if sock.closed:  # an Engine.IO CLOSE: what follows it is not read (a CONNECT would outlive it)
            break
    writer.queue.put(None)  # the writer closes the websocket
    writer.join()
    sock.close(wait=False, abort=True, reason=server.reason.TRANSPORT_CLOSE)
    return []
