"""held.py's on-demand writer (overlay/broadcast/held.py) with eventlet's real websocket on a real
socket pair and the real `Fanout.emit`: what engineio queued goes out in order, before anything
else; a packet the writer waits to send is never overtaken by a direct write; after the queue's end
nothing more is written. Stand-ins only for engineio's Socket and python-socketio's server."""
from __future__ import annotations

import json
import warnings
from types import SimpleNamespace
from typing import Any

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # eventlet's deprecation notice
    import eventlet
    from eventlet import websocket as green_websocket
    from eventlet.green import socket as green_socket
    from eventlet.queue import Queue

from engineio import packet as eio_packet
from socketio import packet as sio_packet

from overlay.broadcast.fanout import Fanout
from overlay.broadcast.held import Writer

from .test_lean_socket import FakeServer, masked

NS = "/overlay"


class Pair:
    """A websocket (server side) over a socket pair, the engineio socket behind it, a Fanout that
    knows it as its only client, and the client's side of the bytes."""

    def __init__(self, queued: list[Any] = ()) -> None:
        self.ours, self.theirs = green_socket.socketpair()
        self.ws = green_websocket.RFC6455WebSocket(self.ours, {}, version=13)
        self.sock = SimpleNamespace(queue=Queue(), upgraded=True, upgrading=False, closed=False)
        for pkt in queued:
            self.sock.queue.put(pkt)
        self.fanout = Fanout()
        self.fanout.server = SimpleNamespace(
            manager=SimpleNamespace(get_participants=lambda ns, rooms: [("s1", "e1")]),
            packet_class=sio_packet.Packet,
            eio=SimpleNamespace(send_packet=lambda sid, pkt: self.sock.queue.put(pkt)))
        self.fanout._spawn = eventlet.spawn_n
        self.fanout.sockets["e1"] = (self.sock, self.ws, self.ws.socket.fd.send, self.ws._sendlock)
        self.got = b""

    def writer(self) -> Writer:
        return Writer(self.sock, self.ws)

    def read(self, frames: int | None = None) -> list[tuple[int, str]]:
        """(opcode, text) of each frame the client side has received: reads until there are
        `frames` of them, or (None) until the stream ends."""
        self.theirs.settimeout(5)
        while frames is None or len(_frames(self.got)) < frames:
            chunk = self.theirs.recv(65536)
            if not chunk:
                break
            self.got += chunk
        return _frames(self.got)


def _frames(data: bytes) -> list[tuple[int, str]]:
    """A server's frames (not masked; payloads under 64 kB)."""
    out = []
    while len(data) >= 2:
        n, at = data[1] & 0x7F, 2
        if n == 126:
            n, at = int.from_bytes(data[2:4], "big"), 4
        if len(data) < at + n:
            break
        out.append((data[0] & 0x0F, data[at:at + n].decode(errors="replace")))
        data = data[at + n:]
    return out


def revs(frames: list[tuple[int, str]]) -> list[int]:
    return [json.loads(t[t.index("["):])[1]["rev"] for op, t in frames if op == 1 and t.startswith("42/overlay,")]


def state(rev: int) -> Any:
    return eio_packet.Packet(eio_packet.MESSAGE, sio_packet.Packet(sio_packet.EVENT, namespace=NS,
                                                                   data=["state", {"rev": rev}]).encode())


def test_what_was_queued_before_goes_first_then_every_put_in_order():
    pair = Pair(queued=[eio_packet.Packet(eio_packet.OPEN, {"sid": "e1"}), state(1)])
    pair.writer()
    for rev in (2, 3):
        pair.sock.queue.put(state(rev))
    eventlet.sleep(0)
    frames = pair.read(4)
    assert frames[0][1].startswith("0{") and revs(frames) == [1, 2, 3]


def test_the_packet_that_ends_a_pending_long_poll_is_left_to_that_poll():
    """An upgrade from long-polling puts a NOOP in the queue to end the poll the client still has
    open. A client that sends its probe and UPGRADE in one write had the writer take the NOOP to
    the websocket: the poll waited out the ping timeout and the session was closed."""
    pair = Pair()
    poll: list = []
    eventlet.spawn(lambda: poll.append(pair.sock.queue.get()))  # the pending long-poll
    eventlet.sleep(0)
    pair.sock.queue.put(eio_packet.Packet(eio_packet.NOOP))  # the handler ends it ...
    pair.writer()  # ... and the websocket is up at once
    pair.sock.queue.put(state(1))
    eventlet.sleep(0)
    assert [p.packet_type for p in poll] == [eio_packet.NOOP]
    assert revs(pair.read(1)[:1]) == [1]  # the websocket's first frame is the state, not the NOOP


def test_a_packet_the_writer_waits_to_send_is_not_overtaken_by_a_direct_write():
    """A direct write finishing in the background holds the send lock (fanout.py `_finish`); the
    next state is queued and the writer waits for the lock. When the lock is released another green
    thread emits before the writer runs: its state must go behind the waiting one, not past it
    (the writer used to take a packet out of the queue before it had the lock)."""
    pair = Pair()
    pair.writer()
    lock = pair.ws._sendlock
    lock.acquire()  # as `_finish` does for a partial direct write
    pair.fanout.emit("state", {"rev": 2}, NS)  # lock busy: queued, the writer waits for the lock
    while not lock._waiters:
        eventlet.sleep(0)
    lock.release()
    pair.fanout.emit("state", {"rev": 3}, NS)  # same hub turn: the writer has not run yet
    assert revs(pair.read(2)) == [2, 3]
    assert pair.fanout.direct == 0 and pair.fanout.queued == 2


def test_the_queues_end_closes_the_websocket_and_nothing_after_it_is_written():
    pair = Pair()
    writer = pair.writer()
    pair.sock.queue.put(state(1))
    pair.sock.queue.put(None)
    pair.sock.queue.put(state(2))
    writer.join()
    frames = pair.read()  # to the end of the stream
    assert revs(frames) == [1] and [op for op, _ in frames] == [1, 8] and writer.ended  # state 1, close
    assert not pair.sock.queue.queue and pair.sock.queue.unfinished_tasks == 0


class Server(FakeServer):
    """test_lean_socket's engineio Server, with what engineio's own Socket reads too."""

    async_handlers = False
    logger = SimpleNamespace(info=lambda *a: None, exception=lambda *a: None)

    def create_queue(self) -> Queue:
        return Queue()


def test_nothing_behind_an_engineio_close_is_read():
    """A CONNECT behind the client's CLOSE would reach python-socketio after the disconnect and
    leave its pre-connected client in the rooms for good: the handler stops reading at the CLOSE."""
    from engineio.socket import Socket

    from overlay.broadcast.held import websocket_handler

    ours, theirs = green_socket.socketpair()
    ws = green_websocket.RFC6455WebSocket(ours, {}, version=13)
    server = Server()
    sock = Socket(server, "e1")
    theirs.sendall(masked(0x1, b'42/overlay,["hello",{}]') + masked(0x1, b"1") + masked(0x1, b"40/overlay,"))
    handler = eventlet.spawn(websocket_handler, sock, ws)
    try:
        with eventlet.Timeout(10, False):  # it ends by itself, having read all it may
            while not handler.dead and len(server.events) < 3:
                eventlet.sleep(0.01)
        assert [e[:2] for e in server.events] == [("message", "e1"), ("disconnect", "e1")]
        assert handler.dead
    finally:
        theirs.close()
        handler.kill()
