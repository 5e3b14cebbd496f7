"""The broadcast to overlays (overlay/broadcast/fanout.py): one frame written straight to each idle websocket.

Against a real server: websocket and long-polling clients side by side get every change once and
in order; a client that stops reading neither holds the others back nor gets a torn stream; the
server does not negotiate compression (every overlay gets the same bytes); threading keeps
engine.io's path and delivers the same. Eventlet by default; CHGK_TEST_ASYNC_MODE=gevent runs
the same tests against gevent's direct path.
"""
from __future__ import annotations

import base64
import json
import os
import queue
import socket
import struct
import time
from pathlib import Path
from typing import Any

import pytest
import socketio

from tests.faults.helpers import tv_spec
from tests.support import Server, handle_in_order

REGULAR = [1, 2, 3, 4, 6, 7, 8, 10, 11, 12]  # the demo game's single-question sectors


class Recorder:
    """A python-socketio /overlay client that records every state rev and graphics seq, in order."""

    def __init__(self, srv: Server, transports: list[str], game: str | None = None) -> None:
        self.revs: list[int] = []
        self.games: list[str] = []
        self.seqs: list[int] = []
        self.events: queue.Queue = queue.Queue()
        # in order: a loaded run recorded revs [.., 42, 44, 43], and wait_rev stuck at 43
        self.sio = handle_in_order(socketio.Client(reconnection=False))
        self.sio.on("state", self._state, namespace="/overlay")
        self.sio.on("graphics", lambda g: (self.seqs.append(g["seq"]), self.events.put("graphics")),
                    namespace="/overlay")
        self.sio.connect(srv.url, namespaces=["/overlay"], transports=transports, wait_timeout=5)
        self.sio.emit("hello", {"graphic": "test-" + transports[-1], "page": "test"}, namespace="/overlay")
        if game:
            self.sio.call("follow", {"game": game}, namespace="/overlay", timeout=5)

    def _state(self, state: dict | None) -> None:
        if state is not None:
            self.revs.append(state["rev"])
            self.games.append(state["id"])
            self.events.put("state")

    def wait_rev(self, rev: int, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while (not self.revs or self.revs[-1] < rev) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.revs and self.revs[-1] >= rev, f"stuck at {self.revs[-1:]} waiting for {rev}"

    def close(self) -> None:
        self.sio.disconnect()


class RawWebSocket:
    """A websocket on a plain socket speaking just enough Engine.IO/Socket.IO to join /overlay."""

    def __init__(self, srv: Server, extensions: str | None = None, rcvbuf: int | None = None) -> None:
        self.sock = socket.socket()
        if rcvbuf:  # before connect, so the window the server sees is small from the start
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(10)
        self.sock.connect(("127.0.0.1", srv.port))
        key = base64.b64encode(os.urandom(16)).decode()
        head = (f"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
                f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\n")
        if extensions:
            head += f"Sec-WebSocket-Extensions: {extensions}\r\n"
        self.sock.sendall((head + "\r\n").encode())
        raw = b""
        while b"\r\n\r\n" not in raw:
            raw += self.sock.recv(4096)
        self.headers, self.buf = raw.split(b"\r\n\r\n", 1)
        assert b" 101 " in self.headers.split(b"\r\n")[0], self.headers
        self.send("40/overlay,")

    def send(self, text: str) -> None:
        data = text.encode()
        assert len(data) < 126
        self.sock.sendall(bytes([0x81, 0x80 | len(data)]) + b"\0\0\0\0" + data)  # zero mask

    def frame(self) -> tuple[int, bytes]:
        """The next frame as (first header byte, payload)."""
        while True:
            n, at = (self.buf[1] & 0x7F, 2) if len(self.buf) >= 2 else (0, 1 << 30)
            if n == 126:
                n, at = (struct.unpack("!H", self.buf[2:4])[0], 4) if len(self.buf) >= 4 else (0, 1 << 30)
            elif n == 127:
                n, at = (struct.unpack("!Q", self.buf[2:10])[0], 10) if len(self.buf) >= 10 else (0, 1 << 30)
            if len(self.buf) >= at + n:
                first, payload, self.buf = self.buf[0], self.buf[at:at + n], self.buf[at + n:]
                return first, payload
            chunk = self.sock.recv(1 << 16)
            assert chunk, "the server closed the connection"
            self.buf += chunk

    def events(self, until: Any) -> list[tuple[str, Any]]:
        """Read (event, data) pairs, answering pings, until `until(event, data)` is true."""
        got: list[tuple[str, Any]] = []
        while True:
            first, payload = self.frame()
            assert first == 0x81, f"expected a final, uncompressed text frame, got {first:#x}"
            text = payload.decode()
            if text == "2":
                self.send("3")
            elif text.startswith("42/overlay,"):
                event, data = json.loads(text[len("42/overlay,"):])
                got.append((event, data))
                if until(event, data):
                    return got

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def server(shared_server: Server) -> Server:
    """One server (the demo game on air) for the module's eventlet tests, in file order: each
    leaves the demo game at the start of a round and closes its clients (the first counts every
    delivery and every overlay connected)."""
    return shared_server


def cycle(srv: Server, i: int) -> int:
    """One of spin / start_timer / undo / undo on the demo game; the new rev."""
    step = i % 4
    if step == 0:
        r = srv.command("g1", type="spin", landed=REGULAR[(i // 4) % len(REGULAR)])
    elif step == 1:
        r = srv.command("g1", type="start_timer")
    else:
        r = srv.call("POST", "/api/games/g1/undo", {})
    assert r.status_code == 200, r.text
    return r.json()["state"]["rev"]


def overlays(srv: Server) -> dict:
    r = srv.call("GET", "/api/overlays")
    assert r.status_code == 200
    return r.json()


def test_websocket_and_polling_overlays_get_every_change_once_in_order(server: Server):
    ws = [Recorder(server, ["websocket"]) for _ in range(12)]
    polling = [Recorder(server, ["polling"]) for _ in range(3)]
    upgraded = Recorder(server, ["polling", "websocket"])  # a browser's way: polling, then upgrade
    clients = ws + polling + [upgraded]
    deadline = time.monotonic() + 10
    while upgraded.sio.transport() != "websocket" and time.monotonic() < deadline:
        time.sleep(0.02)
    listed = overlays(server)
    while len(listed["overlays"]) < len(clients) and time.monotonic() < deadline:
        time.sleep(0.02)  # each client's "hello" is sent without waiting for an answer
        listed = overlays(server)
    assert sorted(o["transport"] for o in listed["overlays"]) == ["polling"] * 3 + ["websocket"] * 13
    before = listed["fanout"]

    last, seq = 0, 0
    for i in range(40):  # back to back, interleaved with graphics: nothing waits for the clients
        last = cycle(server, i)
        if i % 5 == 0:
            r = server.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                                      "data": {"title": f"Игрок {i}"}})
            assert r.status_code == 200, r.text
            seq = r.json()["seq"]
    for c in clients:
        c.wait_rev(last)
        deadline = time.monotonic() + 5
        while c.seqs[-1:] != [seq] and time.monotonic() < deadline:
            time.sleep(0.01)
    for c in clients:
        assert c.revs == sorted(set(c.revs)), "a state arrived twice or out of order"
        assert c.revs[-40:] == list(range(last - 39, last + 1)), "a state went missing"
        assert c.seqs == sorted(set(c.seqs)) and c.seqs[-1] == seq
    after = overlays(server)["fanout"]
    deliveries = 16 * (40 + 8)  # 40 states and 8 graphics to each of 16 clients
    assert after["direct"] + after["queued"] - before["direct"] - before["queued"] == deliveries
    assert after["queued"] - before["queued"] >= 3 * 48  # the polling clients go through engine.io
    assert after["direct"] - before["direct"] >= 48  # and most websockets are written to directly
    for c in clients:
        c.close()


def test_a_pinned_overlay_gets_only_its_game(server: Server):
    other = server.create(tv_spec("Вторая игра"))
    pinned = Recorder(server, ["websocket"], game=other)
    air = Recorder(server, ["websocket"])
    for i in range(4):
        last = cycle(server, i)
    air.wait_rev(last)
    r = server.command(other, type="spin", landed=5)
    assert r.status_code == 200, r.text
    pinned.wait_rev(r.json()["state"]["rev"])
    assert set(pinned.games[-2:]) == {other} and pinned.revs[-2:] == [0, r.json()["state"]["rev"]]
    assert set(air.games) == {"g1"} and air.revs[-1] == last
    pinned.close()
    air.close()


def test_no_compression_is_negotiated_and_frames_are_plain_text(server: Server):
    raw = RawWebSocket(server, extensions="permessage-deflate; client_max_window_bits")
    assert b"sec-websocket-extensions" not in raw.headers.lower()
    got = raw.events(lambda event, data: event == "graphics")
    assert [e for e, _ in got] == ["state", "graphics"]
    rev = cycle(server, 0)
    got = raw.events(lambda event, data: event == "state")
    assert got[-1][1]["rev"] == rev
    raw.close()
    cycle(server, 2)  # the spin undone: the demo game at the start of a round again


def test_a_client_that_stops_reading_holds_nobody_back_and_gets_a_whole_stream(server: Server):
    stuck = RawWebSocket(server, rcvbuf=4096)
    stuck.events(lambda event, data: event == "graphics")  # joined; now it stops reading
    fine = Recorder(server, ["websocket"])
    # every graphics message carries every layer on air: 12 rundown layers, each a ticker of ~7 kB
    # (as big as an item's data may be), make one message ~90 kB, and 80 of them overflow the
    # kernel's buffers (4 MB at most) many times over
    item = ("Very long ticker item " * 13)[:280]
    rd = server.call("POST", "/api/rundowns", {"name": "Buffers"}).json()["id"]
    for k in range(12):
        made = server.call("POST", f"/api/rundowns/{rd}/items", {
            "segment": "Tickers", "label": f"Ticker {k}", "graphic": "ticker", "layer": f"l{k}", "out": "manual",
            "data": {"items": [f"{k} {item}"] * 24}})
        assert made.status_code == 201, made.text
        taken = server.call("POST", f"/api/rundowns/{rd}/actions", {"action": "take", "item": made.json()["id"]})
        assert taken.status_code == 200, taken.text
    seqs_sent = []
    for i in range(80):
        r = server.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                                  "data": {"title": f"Игрок {i}"}})
        assert r.status_code == 200, r.text
        seqs_sent.append(r.json()["seq"])
    seq = seqs_sent[-1]
    deadline = time.monotonic() + 10
    while fine.seqs[-1:] != [seq] and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fine.seqs[-80:] == seqs_sent, "the reading client missed graphics while the other was stuck"
    # what the stuck client now reads must be whole frames, every one, in order
    got = stuck.events(lambda event, data: event == "graphics" and data["seq"] == seq)
    seqs = [data["seq"] for event, data in got if event == "graphics"]
    assert seqs[-80:] == seqs_sent and seqs == list(range(seqs[0], seq + 1))  # the takes' frames too, none lost
    last = got[-1][1]
    assert last["graphics"]["lower-third"]["data"]["title"] == "Игрок 79"
    assert [last["layers"][f"l{k}"]["data"]["items"][0] for k in range(12)] == [f"{k} {item}" for k in range(12)]
    stuck.close()
    fine.close()


@pytest.mark.parametrize("mode", ["threading", "gevent"])
def test_other_async_modes_deliver_every_change_in_order(tmp_path: Path, mode: str):
    """threading keeps engine.io's writer; gevent writes to idle websockets directly as eventlet
    does (the rest of this module runs under gevent with CHGK_TEST_ASYNC_MODE=gevent)."""
    srv = Server(tmp_path / "data", mode=mode).start()
    try:
        clients = [Recorder(srv, ["websocket"]) for _ in range(3)] + [Recorder(srv, ["polling"])]
        before = overlays(srv)["fanout"]
        for i in range(8):
            last = cycle(srv, i)
        for c in clients:
            c.wait_rev(last)
            assert c.revs[-8:] == list(range(last - 7, last + 1))
        after = overlays(srv)["fanout"]
        direct, queued = after["direct"] - before["direct"], after["queued"] - before["queued"]
        assert direct + queued == 4 * 8
        if mode == "threading":
            assert direct == 0
        else:
            assert queued >= 8 and direct >= 8  # the polling client through engine.io, websockets direct
        for c in clients:
            c.close()
    finally:
        srv.stop()
