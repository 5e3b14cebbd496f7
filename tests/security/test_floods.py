"""Floods of held connections, against real server and edge processes on loopback
(docs/SECURITY.md, "Floods"). More half-sent requests than eventlet's own cap of 1,024
greenthreads must not shut new clients out; a request head that does not come whole within
HEADER_TIMEOUT is closed, in each async mode, while websockets and long polls stay; the process
raises its open-files limit to the hard limit."""
from __future__ import annotations

import os
import resource
import select
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import socketio

from tests.support import Server, close_client, edge_status, scale_out, wait_for

pytestmark = pytest.mark.slow

# eventlet.wsgi.DEFAULT_MAX_SIMULTANEOUS_REQUESTS is 1,024: this many held connections used to
# leave a new client unanswered for as long as they were held
HELD = 1050
SHORT = {"CHGK_OVERLAY_HEADER_TIMEOUT": "1"}


def half_sent(port: int, n: int) -> list[socket.socket]:
    """`n` connections that sent a request line and one header, never the blank line ending it."""
    held = []
    try:
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"GET /api/time HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            held.append(s)
    except BaseException:
        close_all(held)
        raise
    return held


def close_all(socks: list[socket.socket]) -> None:
    for s in socks:
        s.close()


def answers_at_once(url: str) -> bool:
    """A new client gets /api/time (5 s is far above its cost, far below a held connection's life)."""
    return requests.get(url + "/api/time", timeout=5).ok


def closed_by_server(s: socket.socket, trickle: bytes = b"") -> bool:
    """True once the server has closed `s`; sends `trickle` (one more header line) each 0.2 s
    meanwhile, as a slowloris does, so that no single read ever waits long."""
    readable, _, _ = select.select([s], [], [], 0.2)
    if readable:
        try:
            return s.recv(4096) == b""
        except ConnectionResetError:
            return True
    if trickle:
        try:
            s.sendall(trickle)
        except (BrokenPipeError, ConnectionResetError):
            return True
    return False


@pytest.fixture
def held_off() -> Iterator[list[socket.socket]]:
    held: list[socket.socket] = []
    yield held
    close_all(held)


def test_more_held_requests_than_eventlets_cap_leave_new_clients_served(tmp_path: Path, held_off: list):
    srv = Server(tmp_path / "data", mode="eventlet").start()
    try:
        held_off += half_sent(srv.port, HELD)
        assert answers_at_once(srv.url)
        r = requests.get(srv.url + "/overlays/show", timeout=5)
        assert r.status_code == 200
    finally:
        srv.stop()


def test_an_edge_serves_new_clients_under_more_held_requests_than_eventlets_cap(tmp_path: Path, held_off: list):
    with scale_out(tmp_path) as so:
        edge = Server(tmp_path / "edge", kind="edge", redis=so.redis.url)
        so.started.append(edge)
        edge.start()
        # an edge answers before it has read the writer's state (run of 21:29): it has it first
        wait_for(lambda: edge_status(edge)["synced"], what="the edge to read the writer's state")
        held_off += half_sent(edge.port, HELD)
        assert answers_at_once(edge.url)
        assert requests.get(edge.url + "/api/edge", timeout=5).json()["synced"]


@pytest.mark.parametrize("mode", ["eventlet", "gevent", "threading"])
def test_a_slow_request_head_is_closed_and_live_clients_stay(tmp_path: Path, mode: str, held_off: list):
    srv = Server(tmp_path / "data", mode=mode, env=SHORT).start()
    ws = socketio.Client(reconnection=False)
    poll = socketio.Client(reconnection=False)
    try:
        seen: dict[str, list] = {"ws": [], "poll": []}
        ws.on("state", seen["ws"].append, namespace="/overlay")
        poll.on("state", seen["poll"].append, namespace="/overlay")
        ws.connect(srv.url, namespaces=["/overlay"], transports=["websocket"], wait_timeout=10)
        poll.connect(srv.url, namespaces=["/overlay"], transports=["polling"], wait_timeout=10)
        wait_for(lambda: seen["ws"] and seen["poll"], what="the first states")
        held_off += half_sent(srv.port, 1)
        trickled = held_off[0]
        idle = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        held_off.append(idle)
        wait_for(lambda: closed_by_server(trickled, b"X-Slow: 1\r\n"), timeout=15, what="the trickled head closed")
        wait_for(lambda: closed_by_server(idle), timeout=15, what="the idle connection closed")
        # the deadline covers request heads only: a websocket and a long poll older than it still get news
        rev = seen["ws"][-1]["rev"]
        srv.play("g1", "spin", landed=3)
        wait_for(lambda: seen["ws"][-1]["rev"] > rev and seen["poll"][-1]["rev"] > rev, what="the new state")
        assert ws.connected and poll.connected
        assert answers_at_once(srv.url)
    finally:
        close_client(ws)
        close_client(poll)
        srv.stop()


def test_the_open_files_limit_is_raised_to_the_hard_limit(tmp_path: Path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    low = max(1024, len(os.listdir("/proc/self/fd")) + 256)  # room for what this process opens meanwhile
    if hard == resource.RLIM_INFINITY or hard <= low:
        if os.environ.get("CI") == "true":  # CI installs and runs everything: a missing part is a failure
            pytest.fail(f"the hard limit ({hard}) leaves nothing to raise")
        pytest.skip(f"the hard limit ({hard}) leaves nothing to raise")
    resource.setrlimit(resource.RLIMIT_NOFILE, (low, hard))  # what the child inherits, as under systemd
    try:
        srv = Server(tmp_path / "data", mode="eventlet")
        srv.start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        line = next(x for x in Path(f"/proc/{srv.proc.pid}/limits").read_text().splitlines()
                    if x.startswith("Max open files"))
        assert line.split()[3:5] == [str(hard), str(hard)], line
        assert f"open files limit {hard}: up to {hard - hard // 10} connections" in srv.output()
    finally:
        srv.stop()
