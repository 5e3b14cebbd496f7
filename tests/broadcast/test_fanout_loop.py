"""`Fanout.emit`'s loop, without a server: which client takes the direct write and which engine.io's
queue (overlay/broadcast/fanout.py). Fakes stand for engine.io's Socket and eventlet's websocket;
the lock and the queue are eventlet's own (gevent's too, for gevent mode's entries), the rooms
python-socketio's manager.
"""
from __future__ import annotations

import importlib
import json
import socket
import warnings
from collections import deque
from typing import Any

import pytest
from bidict import bidict
from socketio import packet as sio_packet
from socketio.base_manager import BaseManager

from overlay.broadcast import fanout as fanout_module
from overlay.broadcast.fanout import Fanout

NS = "/overlay"
Queue: Any = None
Semaphore: Any = None


@pytest.fixture(autouse=True, params=["eventlet", "gevent"])
def primitives(request: pytest.FixtureRequest) -> None:
    """engine.io's queue and the websocket's send lock of that async mode (their `queue` deque
    and `counter` are what the loop reads)."""
    global Queue, Semaphore
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # eventlet's deprecation notice
        queues = importlib.import_module(f"{request.param}.queue")
        locks = importlib.import_module("eventlet.semaphore" if request.param == "eventlet" else "gevent.lock")
    Queue, Semaphore = queues.Queue, locks.Semaphore


class Sock:
    """engine.io's Socket, as far as the loop reads it."""

    def __init__(self) -> None:
        self.closed = self.upgrading = False
        self.upgraded = True
        self.queue = Queue()


class Ws:
    """eventlet's websocket: `websocket_closed`, `_sendlock`, and the socket `_finish` writes to."""

    def __init__(self) -> None:
        self.websocket_closed = False
        self._sendlock = Semaphore()
        self.socket = self
        self.finished: list[bytes] = []

    def sendall(self, data: bytes) -> None:
        self.finished.append(data)


class Eio:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any]] = []
        self.vanished: set[str] = set()

    def send_packet(self, eio_sid: str, pkt: Any) -> None:
        if eio_sid in self.vanished:
            raise KeyError(eio_sid)
        self.sent.append((eio_sid, pkt))


class World:
    def __init__(self, n: int, rooms: dict[str, range] | None = None) -> None:
        self.fanout = Fanout()
        self.eio = Eio()
        manager = BaseManager()
        manager.rooms = {NS: {room: bidict((f"s{i}", f"e{i}") for i in ids)
                              for room, ids in (rooms or {"air": range(n)}).items()}}
        self.fanout.server = type("Server", (), {"manager": manager, "eio": self.eio,
                                                 "packet_class": sio_packet.Packet})()
        self.spawned: list[tuple] = []
        self.fanout._spawn = lambda *a: self.spawned.append(a)
        self.written: dict[str, list[bytes]] = {}
        self.socks: dict[str, Sock] = {}
        self.wss: dict[str, Ws] = {}
        for i in range(n):
            self.track(f"e{i}")

    def track(self, eio_sid: str, send: Any = None) -> None:
        sock, ws = Sock(), Ws()
        self.socks[eio_sid], self.wss[eio_sid] = sock, ws
        written = self.written.setdefault(eio_sid, [])

        def default_send(frame: bytes) -> int:
            written.append(frame)
            return len(frame)

        self.fanout.sockets[eio_sid] = (sock, ws, send or default_send, ws._sendlock)


def event_of(frame: bytes) -> list:
    """The Socket.IO event in a websocket text frame (header of 2 or 4 bytes: payloads < 64 kB)."""
    text = frame[4:] if frame[1] == 126 else frame[2:]
    assert text.startswith(b"42/overlay,")
    return json.loads(text[len(b"42/overlay,"):])


def test_only_idle_websockets_are_written_to_the_rest_go_through_engineio():
    w = World(8)
    w.socks["e1"].queue.put("earlier")  # something queued: the new one must go behind it
    w.wss["e2"]._sendlock.acquire()  # a send is waiting for the buffer
    w.socks["e3"].upgrading = True
    w.socks["e4"].upgraded = False  # still long-polling
    w.socks["e5"].closed = True
    w.wss["e6"].websocket_closed = True
    del w.fanout.sockets["e7"]  # not a websocket this module knows
    w.fanout.emit("state", {"rev": 5}, NS, ["air"])
    assert [event_of(f) for f in w.written["e0"]] == [["state", {"rev": 5}]]
    assert all(not w.written[f"e{i}"] for i in range(1, 8))
    assert [sid for sid, _ in w.eio.sent] == [f"e{i}" for i in range(1, 8)]
    assert w.fanout.direct == 1 and w.fanout.queued == 7
    assert not w.spawned and w.wss["e0"]._sendlock.counter == 1


def test_each_client_in_several_rooms_gets_it_once():
    w = World(6, rooms={"air": range(0, 4), "game:g1": range(2, 6)})
    w.fanout.emit("state", {"rev": 1}, NS, ["air", "game:g1"])
    assert all(len(w.written[f"e{i}"]) == 1 for i in range(6))
    assert w.fanout.direct == 6


def test_patches_go_to_the_clients_that_asked_for_them():
    w = World(4)
    w.socks["e3"].upgraded = False
    w.fanout.emit("state", {"rev": 2}, NS, ["air"], alt=({"s1", "s3"}, "state_patch", {"rev": 2, "ops": []}))
    assert event_of(w.written["e0"][0]) == ["state", {"rev": 2}]
    assert event_of(w.written["e1"][0]) == ["state_patch", {"rev": 2, "ops": []}]
    assert event_of(w.written["e2"][0]) == ["state", {"rev": 2}]
    [(sid, pkt)] = w.eio.sent
    assert sid == "e3" and json.loads(pkt.data[len("2/overlay,"):])[0] == "state_patch"


def test_a_vanished_client_does_not_stop_the_loop():
    w = World(5)
    for i in (1, 3):
        w.socks[f"e{i}"].upgraded = False
    w.eio.vanished.add("e1")

    def gone(frame: bytes) -> int:
        raise ConnectionResetError

    w.track("e2", send=gone)  # the direct write fails: engine.io's queue gets it, and meets the error
    w.fanout.emit("state", {"rev": 3}, NS, ["air"])
    assert [sid for sid, _ in w.eio.sent] == ["e2", "e3"]
    assert all(len(w.written[f"e{i}"]) == 1 for i in (0, 4))
    assert w.fanout.direct == 2 and w.fanout.queued == 3


@pytest.mark.parametrize("accepted", [0, 100])
def test_a_partial_send_is_finished_in_the_background_holding_the_lock(accepted: int):
    w = World(3)

    def full(frame: bytes) -> int:
        if not accepted:
            raise BlockingIOError
        return accepted

    w.track("e1", send=full)
    w.fanout.emit("state", {"rev": 4, "text": "x" * 500}, NS, ["air"])
    [(fn, ws, lock, rest)] = w.spawned
    frame = w.written["e0"][0]
    assert ws is w.wss["e1"] and lock is ws._sendlock and lock.locked() and rest == frame[accepted:]
    assert w.fanout.direct == 3 and w.fanout.queued == 0
    # the next message to that client waits for engine.io's writer, behind the rest of the frame
    w.fanout.emit("state", {"rev": 5}, NS, ["air"])
    assert [sid for sid, _ in w.eio.sent] == ["e1"]
    fn(ws, lock, rest)
    assert ws.finished == [rest] and not lock.locked()


def test_a_partial_send_lets_no_waiting_writer_in_between_the_frames_halves():
    """A send lock just released while a writer waits for it (the reader's pong) is free, and under
    eventlet promised to that writer: waiting for it there would let the pong in between the two
    halves of the frame, and the client's stream would be torn."""
    lib = importlib.import_module(Semaphore.__module__.split(".")[0])  # eventlet or gevent
    w = World(1)
    stream: list[bytes] = []

    def partial(frame: bytes) -> int:
        stream.append(frame[:100])
        return 100

    w.track("e0", send=partial)
    ws = w.wss["e0"]
    ws.socket = type("Sock", (), {"sendall": staticmethod(stream.append)})()
    lock = ws._sendlock
    lock.acquire()  # engine.io's writer is sending

    def pong() -> None:
        with lock:
            stream.append(b"pong")

    waiter = lib.spawn(pong)
    lib.sleep(0)  # it waits for the lock
    lock.release()  # free, its waiter still to be woken
    w.fanout.emit("state", {"rev": 4, "text": "x" * 500}, NS, ["air"])
    [(finish, _, held, rest)] = w.spawned
    finish(ws, held, rest)  # fanout._finish: the rest of the frame, then the lock goes
    getattr(waiter, "wait", getattr(waiter, "join", None))()
    assert stream[1:] == [rest, b"pong"] and len(stream[0]) == 100


def test_a_frame_cut_short_in_the_background_is_the_connections_last():
    """The rest of a frame that does not go out (reset, or a send timeout partway) leaves the
    client a torn frame: nothing may follow it, so the connection is shut down (both ways: the
    reader sees the end and closes the Engine.IO socket)."""
    w = World(1)
    w.track("e0", send=lambda frame: 100)
    ws, shut = w.wss["e0"], []

    class Raw:
        def shutdown(self, how: int) -> None:
            shut.append(how)

    class Sock:
        fd = Raw()

        def sendall(self, data: bytes) -> None:
            raise TimeoutError("timed out")

    ws.socket = Sock()
    w.fanout.emit("state", {"rev": 4, "text": "x" * 500}, NS, ["air"])
    [(finish, _, lock, rest)] = w.spawned
    finish(ws, lock, rest)
    assert shut == [socket.SHUT_RDWR] and not lock.locked()


def background(monkeypatch: pytest.MonkeyPatch, chunk: int, inline: int) -> None:
    """Small chunks and threshold, for a background fan-out of a few clients."""
    monkeypatch.setattr(fanout_module, "CHUNK", chunk)
    monkeypatch.setattr(fanout_module, "INLINE", inline)


def test_in_the_background_messages_go_out_whole_and_in_order_yielding_between_chunks(
        monkeypatch: pytest.MonkeyPatch):
    """`install(..., background=True)`: `emit` returns before any send; one green thread sends each
    message to every client before the next, `CHUNK` clients at a time, and lets the rest of the
    server run between chunks — where a message given meanwhile waits its turn."""
    background(monkeypatch, chunk=3, inline=6)
    w = World(7)
    w.fanout._jobs = deque()
    yields: list[int] = []

    def meanwhile() -> None:  # the operator's answer, a GET, the next command run here
        yields.append(sum(len(f) for f in w.written.values()))
        if len(yields) == 1:
            w.fanout.emit("state", {"rev": 3}, NS, ["air"])

    w.fanout._yield = meanwhile
    w.fanout.emit("state", {"rev": 1}, NS, ["air"])
    w.fanout.emit("state", {"rev": 2}, NS, ["air"])
    assert not any(w.written.values()), "emit waited for the sends"
    [(work,)] = w.spawned  # one green thread for both
    work()
    # 7 clients in chunks of 3: a yield after 3 and 6 of each message's sends
    assert yields == [3, 6, 10, 13, 17, 20]
    for i in range(7):
        assert [event_of(f)[1]["rev"] for f in w.written[f"e{i}"]] == [1, 2, 3], i
    assert w.fanout.direct == 21 and not w.fanout._jobs and not w.fanout._working
    w.fanout.emit("state", {"rev": 4}, NS, ["air"])  # idle again: the next message starts a new one
    assert len(w.spawned) == 2


def test_in_the_background_a_small_message_goes_inline_unless_a_big_one_is_going_out(
        monkeypatch: pytest.MonkeyPatch):
    """Up to `INLINE` clients a message is sent at once, in the caller (a few ms, before the
    command's fsync) — but never ahead of a bigger message still going out to the same clients."""
    background(monkeypatch, chunk=3, inline=4)
    w = World(7, rooms={"air": range(7), "game:g1": range(4)})
    w.fanout._jobs = deque()
    w.fanout._yield = lambda: None
    w.fanout.emit("state", {"rev": 1}, NS, ["game:g1"])  # 4 clients, nothing going out: inline
    assert not w.spawned and [len(w.written[f"e{i}"]) for i in range(7)] == [1, 1, 1, 1, 0, 0, 0]
    w.fanout.emit("graphics", {"seq": 1}, NS, ["air"])  # 7: in the background
    w.fanout.emit("state", {"rev": 2}, NS, ["game:g1"])  # small, but behind it
    assert [len(w.written[f"e{i}"]) for i in range(7)] == [1, 1, 1, 1, 0, 0, 0]
    [(work,)] = w.spawned
    work()
    for i in range(4):
        assert [event_of(f)[0] for f in w.written[f"e{i}"]] == ["state", "graphics", "state"], i
    w.fanout.emit("state", {"rev": 3}, NS, ["game:g1"])  # idle again: inline
    assert len(w.spawned) == 1 and len(w.written["e0"]) == 4


def test_settle_waits_for_the_background_and_a_failed_chunk_spares_the_others(monkeypatch: pytest.MonkeyPatch):
    """`settle()` returns once nothing is going out (a `follow`'s answer, a `preview` must not
    overtake); a client whose send fails in a way the loop does not expect costs only its chunk."""
    background(monkeypatch, chunk=3, inline=0)
    w = World(8)

    def broken(frame: bytes) -> int:
        raise RuntimeError("a bug in a send")

    w.track("e1", send=broken)
    w.fanout._jobs = deque()
    w.fanout.emit("state", {"rev": 1}, NS, ["air"])
    [(work,)] = w.spawned
    turns: list[int] = []

    def hub_turn() -> None:  # the first turn runs the fan-out's thread (whose own yields return at once)
        turns.append(1)
        if len(turns) == 1:
            work()

    w.fanout._yield = hub_turn
    w.fanout.settle()
    assert len(turns) == 3  # settle's turn, then the two between the three chunks
    assert not w.fanout._working
    # e0 went before the failure, e2 was in its chunk, every later chunk went out
    assert [len(w.written[f"e{i}"]) for i in range(8)] == [1, 0, 0, 1, 1, 1, 1, 1]

