"""lean.py's websocket (overlay/broadcast/lean.py) on a real socket pair under eventlet's real hub,
with the real `Fanout.emit`: frames the client does not read wait and go out whole and in order
once it reads; a client that leaves too much unread is closed and disconnected once; frames are
parsed as RFC 6455 says, fragments and interleaved control frames included; a protocol error
closes the connection. Stand-ins only for engineio's server and python-socketio's rooms."""
from __future__ import annotations

import socket
import struct
import warnings
from types import SimpleNamespace
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # eventlet's deprecation notice
    import eventlet

from socketio import packet as sio_packet

from overlay.broadcast import lean
from overlay.broadcast.fanout import Fanout

NS = "/overlay"


class FakeServer(SimpleNamespace):
    """What lean.py reads of engineio's Server, recording the events it triggers."""

    def __init__(self) -> None:
        super().__init__(sockets={}, max_http_buffer_size=1000, ping_interval=25, ping_timeout=20,
                         reason=SimpleNamespace(SERVER_DISCONNECT="server", CLIENT_DISCONNECT="client",
                                                TRANSPORT_CLOSE="transport", PING_TIMEOUT="ping"),
                         events=[])

    def _trigger_event(self, event: str, *args: Any, run_async: bool = False) -> None:
        self.events.append((event, *args))


class Pair:
    """A LeanSocket over one end of a socket pair, registered as a Fanout's only client."""

    def __init__(self) -> None:
        self.eio = FakeServer()
        self.fanout = Fanout()
        self.fanout.server = SimpleNamespace(
            manager=SimpleNamespace(get_participants=lambda ns, rooms: [("s1", "e1")]),
            packet_class=sio_packet.Packet, eio=SimpleNamespace(send_packet=self._refused))
        self.home = lean.Home(self.eio, self.fanout.sockets)
        ours, self.theirs = socket.socketpair()
        for s in (ours, self.theirs):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        ours.setblocking(False)
        self.lean = lean.LeanSocket(self.home, "e1")
        self.lean.sock, self.lean.fd = ours, ours.fileno()
        self.eio.sockets["e1"] = self.lean
        self.home.sockets["e1"] = self.lean
        self.fanout.sockets["e1"] = (self.lean, self.lean, self.lean.write, self.lean)
        self.lean.reader = lean._listen(eventlet.hubs.get_hub().READ, self.lean.fd, self.lean._readable)
        self.got = b""

    def _refused(self, sid: str, pkt: Any) -> None:
        raise AssertionError("a lean socket's frames never go through engineio's queue")

    def client_frames(self, until: int) -> list[tuple[int, bytes]]:
        """Read as the client until `until` frames have come (the hub runs meanwhile)."""
        self.theirs.setblocking(False)
        for _ in range(5000):
            if len(_frames(self.got)) >= until:
                break
            try:
                chunk = self.theirs.recv(65536)
                if not chunk:
                    break
                self.got += chunk
            except BlockingIOError:
                eventlet.sleep(0.001)
        return _frames(self.got)

    def send(self, *frames: bytes) -> None:
        self.theirs.sendall(b"".join(frames))
        for _ in range(200):  # the hub reads it
            eventlet.sleep(0.001)

    def close(self) -> None:
        self.lean._lost()
        eventlet.sleep(0.01)
        self.theirs.close()


def masked(opcode: int, payload: bytes, fin: bool = True, mask: bytes = b"\x01\x02\x03\x04") -> bytes:
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    else:
        head += bytes([0x80 | 126]) + struct.pack("!H", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    out, at = [], 0
    while len(data) - at >= 2:
        n, head = data[at + 1] & 0x7F, 2
        if n == 126:
            n, head = struct.unpack_from("!H", data, at + 2)[0], 4
        elif n == 127:
            n, head = struct.unpack_from("!Q", data, at + 2)[0], 10
        if len(data) - at < head + n:
            break
        out.append((data[at], data[at + head:at + head + n]))
        at += head + n
    return out


@pytest.fixture
def pair():
    p = Pair()
    yield p
    p.close()


def test_frames_the_client_does_not_read_wait_and_arrive_whole_and_in_order(pair: Pair):
    texts = [f"message {i} " + "x" * 3000 for i in range(40)]  # ~120 kB: far past both buffers
    for i, text in enumerate(texts):
        pair.fanout.emit("state", {"rev": i, "text": text}, NS)
    assert pair.fanout.direct == 40 and pair.fanout.queued == 0
    assert pair.lean.waiting, "the kernel took everything: the test's buffers are too big"
    waited = lean.Home.waited
    pair.lean.send(SimpleNamespace(encode=lambda: "2"))  # engineio's own packet: behind them
    assert lean.Home.waited == waited + 1
    frames = pair.client_frames(41)
    assert len(frames) == 41 and all(first == 0x81 for first, _ in frames)
    revs = [int(p.split(b'"rev":')[1].split(b",")[0]) for _, p in frames[:40]]
    assert revs == list(range(40)) and frames[40][1] == b"2"
    assert pair.lean.waiting is None and pair.lean.writer is None  # nothing left: no write listener


def test_a_client_that_leaves_too_much_unread_is_closed_and_disconnected_once(pair: Pair, monkeypatch):
    monkeypatch.setattr(lean, "MAX_WAITING", 50_000)
    for i in range(40):
        pair.fanout.emit("state", {"rev": i, "text": "x" * 3000}, NS)
    eventlet.sleep(0.05)
    assert pair.lean.closed and pair.lean.sock is None
    assert [e for e in pair.eio.events if e[0] == "disconnect"] == [("disconnect", "e1", "transport")]
    assert pair.home.sockets == {} and pair.eio.sockets == {} and pair.fanout.sockets == {}
    pair.fanout.emit("state", {"rev": 99}, NS)  # gone: not written, not queued anywhere


def test_fragments_with_a_ping_between_are_one_message_and_the_ping_is_answered(pair: Pair):
    pair.send(masked(0x1, b"42/overlay,", fin=False), masked(0x9, b"hi"),
              masked(0x0, b'["hello",', fin=False), masked(0x0, b'{"graphic":"x"}]'))
    frames = pair.client_frames(1)
    assert frames[0] == (0x8A, b"hi")  # a pong with the ping's payload
    messages = [e for e in pair.eio.events if e[0] == "message"]
    assert messages == [("message", "e1", '2/overlay,["hello",{"graphic":"x"}]')]
    pair.send(masked(0x1, b"3"))  # an Engine.IO PONG ends the ping's wait
    pair.lean.pinged = 1.0
    pair.send(masked(0x1, b"3"))
    assert pair.lean.pinged == 0.0 and not pair.lean.closed


def test_a_close_frame_is_a_client_disconnect_answered_with_a_close(pair: Pair):
    pair.send(masked(0x8, struct.pack("!H", 1000)))
    frames = pair.client_frames(1)
    assert frames == [(0x88, struct.pack("!H", 1000))]
    assert [e for e in pair.eio.events if e[0] == "disconnect"] == [("disconnect", "e1", "transport")]
    assert pair.lean.closed and pair.eio.sockets == {}


def test_a_one_byte_close_payload_is_answered_with_no_code(pair: Pair):
    pair.send(masked(0x8, b"\x03"))  # one byte is no close code: the answer must carry none either
    assert pair.client_frames(1) == [(0x88, b"")]
    assert pair.lean.closed


@pytest.mark.parametrize("end", [masked(0x8, struct.pack("!H", 1000)), masked(0x1, b"1")], ids=["close-frame", "engineio-close"])
def test_nothing_behind_the_clients_close_is_read(pair: Pair, end: bytes):
    """A CONNECT behind a close, in the same segment, would reach python-socketio after the
    disconnect and leave its pre-connected client in the rooms for good."""
    pair.send(masked(0x1, b'42/overlay,["hello",{}]') + end + masked(0x1, b"40/overlay,"))
    assert [e[:2] for e in pair.eio.events] == [("message", "e1"), ("disconnect", "e1")]
    assert pair.lean.closed and pair.eio.sockets == {}


def test_a_client_that_reads_nothing_more_is_closed_for_good_after_the_grace(pair: Pair, monkeypatch):
    """The pinger closes a silent client politely (CLOSE packet, close frame): one that reads no
    more cannot take them, and after CLOSE_GRACE_S its descriptor and frames are let go."""
    monkeypatch.setattr(lean, "CLOSE_GRACE_S", 0.3)
    for i in range(40):
        pair.fanout.emit("state", {"rev": i, "text": "x" * 3000}, NS)
    assert pair.lean.waiting, "the kernel took everything: the test's buffers are too big"
    pair.lean.close(False, False, "ping")
    assert pair.lean.closed and pair.lean.sock is not None, "a polite close waits for its frames"
    assert pair.eio.sockets == {} and pair.home.sockets == {} and pair.fanout.sockets == {}
    for _ in range(300):
        if pair.lean.sock is None:
            break
        eventlet.sleep(0.01)
    assert pair.lean.sock is None and pair.lean.writer is None and pair.lean.waiting is None
    assert [e for e in pair.eio.events if e[0] == "disconnect"] == [("disconnect", "e1", "ping")]


def test_a_callback_of_the_hub_after_the_socket_was_shut_does_nothing(pair: Pair):
    """eventlet's hub collects a turn's callbacks before it runs them: one may shut the socket
    (a failed write elsewhere) before this socket's own read or write callback runs."""
    fd = pair.lean.fd
    pair.lean._shut()
    pair.lean._readable(fd)
    pair.lean._writable(fd)
    assert pair.lean.sock is None and pair.eio.events == []


@pytest.mark.parametrize("frame", [
    bytes([0x81, 0x01]) + b"4",  # unmasked
    masked(0x1, b"4").replace(b"\x81", b"\xc1", 1),  # an extension bit, none negotiated
    masked(0x0, b"4"),  # a continuation of nothing
    masked(0x1, b"4\xff\xfe"),  # not UTF-8
    masked(0x3, b"4"),  # a reserved opcode
    masked(0xB, b""),  # a reserved control opcode
    masked(0x1, b"x"),  # not an Engine.IO packet
    bytes([0x81, 0x80 | 126]) + struct.pack("!H", 5000),  # more than maxPayload (1000 here), announced
    masked(0x9, b"p" * 10, fin=False),  # a fragmented control frame
], ids=["unmasked", "rsv", "continuation", "utf8", "opcode", "control-opcode", "not-engineio", "too-large",
         "fragmented-ping"])
def test_a_protocol_error_closes_the_connection(pair: Pair, frame: bytes):
    pair.send(frame)
    assert pair.lean.closed and pair.lean.sock is None
    assert [e[0] for e in pair.eio.events] == ["disconnect"]
    assert pair.theirs.recv(100) == b""  # aborted: closed without a word
