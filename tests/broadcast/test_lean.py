"""A websocket opened directly, against a real server (overlay/broadcast/lean.py): it leaves
eventlet.wsgi's pool once its handshake is done, yet still counts against MAX_CONNECTIONS; a
client that closes is disconnected at once; a protocol error closes that connection only, without
a traceback; Socket.IO's acknowledgements and events work through it as through engineio's."""
from __future__ import annotations

import socket
import struct
from pathlib import Path

import pytest
import socketio
import websocket

from tests.support import Server, wait_for

from .test_held import PING, Overlay


def handshake(port: int) -> tuple[socket.socket, bytes, bytes]:
    """A direct websocket request; (the socket, the status line, what came after the head)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
              b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk:
            break
        head += chunk
    return s, head.split(b"\r\n", 1)[0], head.partition(b"\r\n\r\n")[2]


def overlay_count(srv: Server) -> int:
    return len(srv.api("GET", "/api/overlays")["overlays"])


@pytest.fixture
def srv(tmp_path: Path):
    s = Server(tmp_path / "data", env=PING).start()
    yield s
    s.stop()


def test_direct_websockets_count_against_the_cap_and_free_it_when_they_go(tmp_path: Path):
    # the default ping (25 s): these clients never answer one, and must not be closed meanwhile
    srv = Server(tmp_path / "data", env={"CHGK_OVERLAY_MAX_CONNECTIONS": "12"}).start()
    held: list[socket.socket] = []
    try:
        refused = None
        for _ in range(20):  # the cap (12) less the test's own keep-alive connection
            s, status, rest = handshake(srv.port)
            if b" 101 " not in status:
                refused = status
                s.close()
                break
            assert (rest or s.recv(4096)).startswith(b"\x81")  # Engine.IO's OPEN, in a text frame
            held.append(s)
        assert refused is not None and b" 503 " in refused, f"{len(held)} held, then {refused!r}"
        assert 8 <= len(held) <= 12
        assert srv.call("GET", "/api/time").ok  # the panel's own connection is still served
        srv.http.close()  # its keep-alive connection holds a place too, until it is idle 10 s
        held.pop().close()
        s, *_ = wait_for(lambda: (lambda r: r if b" 101 " in r[1] else r[0].close())(handshake(srv.port)),
                         timeout=20, what="a free place once a client went")
        held.append(s)
    finally:
        for s in held:
            s.close()
        srv.stop()


def test_a_client_that_closes_is_disconnected_and_a_broken_one_leaves_no_traceback(srv: Server):
    a, b = Overlay(srv), Overlay(srv)
    for o in (a, b):
        o.ws.send('42/overlay,["hello",{"graphic":"test","page":"test"}]')  # listed by the panel
    wait_for(lambda: a.states() and b.states(), timeout=30, what="both joined")
    wait_for(lambda: overlay_count(srv) >= 2, what="both counted")
    count = overlay_count(srv)
    a.ws.close()  # a close frame
    wait_for(lambda: overlay_count(srv) == count - 1, what="the closed client's disconnect")
    raw, status, _ = handshake(srv.port)
    assert b" 101 " in status
    raw.sendall(bytes([0x81, 0x80 | 126]) + struct.pack("!H", 65000) + b"\0\0\0\0")  # then never the rest
    raw.sendall(bytes([0x81, 0x02]) + b"40")  # ... and unmasked: protocol errors both
    raw.settimeout(10)
    wait_for(lambda: raw.recv(65536) == b"", timeout=20, what="the broken connection closed")
    wait_for(lambda: b.pings >= 2, timeout=30, what="the other client's pings")
    assert not b.closed.is_set()
    assert "Traceback" not in srv.output()
    b.close()


def test_socketio_calls_and_server_disconnects_work_through_a_direct_websocket(srv: Server):
    c = socketio.Client(reconnection=False)
    gone = []
    c.on("disconnect", lambda *reason: gone.append(reason), namespace="/overlay")
    c.connect(srv.url, namespaces=["/overlay"], transports=["websocket"], wait_timeout=10)
    try:
        assert c.transport() == "websocket"
        assert "server_now" in c.call("time", {}, namespace="/overlay", timeout=10)
        game = srv.api("GET", "/api/games")["games"][0]["id"]
        assert c.call("follow", {"game": game}, namespace="/overlay", timeout=10)["game"] == game
        c.emit("hello", {"graphic": "test", "page": "test"}, namespace="/overlay")
        sid = c.get_sid("/overlay")
        wait_for(lambda: any(o["sid"] == sid for o in srv.api("GET", "/api/overlays")["overlays"]),
                 what="the client listed")
        listed = next(o for o in srv.api("GET", "/api/overlays")["overlays"] if o["sid"] == sid)
        assert listed["transport"] == "websocket"
        assert srv.call("POST", f"/api/overlays/{sid}/reload", {}).status_code == 200
    finally:
        c.disconnect()
    with pytest.raises((websocket.WebSocketException, OSError)):  # what a refused upgrade looks like
        ws = websocket.create_connection(f"ws://127.0.0.1:{srv.port}/socket.io/?EIO=3&transport=websocket",
                                         timeout=5)
        ws.recv()
