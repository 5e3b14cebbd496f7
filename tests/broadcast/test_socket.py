"""Socket.IO: `/overlay` (public, read-only) and `/control` (operators) against a real server."""
from __future__ import annotations

import queue
import time
from typing import Any

import pytest
import requests
import socketio

from overlay.demo import DEMO_SPEC
from tests.faults.helpers import login, panel_csrf
from tests.support import TOKEN, Server, handle_in_order


class Client:
    """A python-socketio client that queues what it receives."""

    def __init__(self, srv: Server, namespace: str, auth: Any = None) -> None:
        self.sio = handle_in_order(socketio.Client(reconnection=False))  # queued in the order they came
        self.ns = namespace
        self.got: dict[str, queue.Queue] = {"state": queue.Queue(), "graphics": queue.Queue()}
        for name, q in self.got.items():
            self.sio.on(name, q.put, namespace=namespace)
        self.sio.connect(srv.url, namespaces=[namespace], auth=auth, transports=["websocket"], wait_timeout=5)

    def next(self, name: str = "state", timeout: float = 10) -> Any:
        return self.got[name].get(timeout=timeout)

    def call(self, event: str, data: Any = None) -> Any:
        return self.sio.call(event, data, namespace=self.ns, timeout=5)

    def close(self) -> None:
        self.sio.disconnect()


@pytest.fixture
def server(shared_server: Server) -> Server:
    """One server for the module; each test that needs a game gets its own (`game`)."""
    return shared_server


@pytest.fixture
def game(server: Server) -> str:
    """A fresh copy of the demo game (rev 0), on air, and no graphic on air: what a newly
    started `serve --demo` holds."""
    shown = server.api("GET", "/api/graphics")["graphics"]
    for name in shown:
        server.api("POST", "/api/graphics", {"action": "clear", "graphic": name})
    return server.create(DEMO_SPEC, on_air=True)


@pytest.fixture
def overlay(server: Server, game: str):
    c = Client(server, "/overlay")
    yield c
    c.close()


def test_overlay_gets_state_and_graphics_on_connect(game: str, overlay: Client):
    state = overlay.next()
    assert state["id"] == game and state["rev"] == 0 and state["title"] == "Демонстрационная игра"
    assert "questions" not in state["sectors"][0]
    assert overlay.next("graphics")["graphics"] == {}


def test_overlay_gets_every_change_at_once(server: Server, game: str, overlay: Client):
    overlay.next()
    server.command(game, type="spin", landed=3)
    state = overlay.next()  # how soon is bench/latency.py's question; here: it comes, unasked
    assert state["rev"] == 1 and state["round"]["sector"] == 3 and state["round"]["answer"] is None
    server.command(game, type="start_timer")
    assert overlay.next()["timer"]["running"]
    server.call("POST", f"/api/games/{game}/undo")
    assert overlay.next()["rev"] == 3


def test_refused_command_broadcasts_nothing(server: Server, game: str, overlay: Client):
    overlay.next()
    assert server.command(game, type="judge", correct=True).status_code == 422
    with pytest.raises(queue.Empty):
        overlay.next(timeout=0.5)


def test_overlay_accepts_no_commands(server: Server, game: str, overlay: Client):
    overlay.next()
    overlay.sio.emit("command", {"type": "spin"}, namespace="/overlay")
    overlay.sio.emit("undo", {}, namespace="/overlay")
    time.sleep(0.3)
    assert server.state(game)["rev"] == 0


def test_overlay_follows_a_pinned_game(server: Server, game: str, overlay: Client):
    overlay.next()
    other = server.create({"rules": "tv", "title": "Другая"})
    answer = overlay.call("follow", {"game": other})
    assert answer["game"] == other
    assert overlay.next()["id"] == other
    server.command(game, type="spin", landed=1)
    server.command(other, type="spin", landed=2)
    assert overlay.next()["round"]["sector"] == 2
    assert overlay.call("follow", {"game": "nope"})["status"] == 404


def test_overlay_follows_the_on_air_switch(server: Server, overlay: Client):
    overlay.next()
    other = server.create({"rules": "tv", "title": "Другая"})
    server.call("PUT", "/api/on-air", {"game": other})
    assert overlay.next()["id"] == other


def test_clock_sync_answers_server_time(overlay: Client):
    now = overlay.call("time")["server_now"]
    assert abs(now - time.time() * 1000) < 1000


def test_graphics_event_on_change(server: Server, overlay: Client):
    overlay.next("graphics")
    server.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third", "data": {"title": "Борис"}})
    assert overlay.next("graphics")["graphics"]["lower-third"]["data"]["title"] == "Борис"


def test_control_refuses_without_credentials(server: Server):
    with pytest.raises(socketio.exceptions.ConnectionError):
        Client(server, "/control")
    with pytest.raises(socketio.exceptions.ConnectionError):
        Client(server, "/control", auth={"token": "wrong"})


def test_control_commands_and_undo_with_acks(server: Server, game: str, overlay: Client):
    overlay.next()
    ctl = Client(server, "/control", auth={"token": TOKEN})
    try:
        first = ctl.next()
        assert first["sectors"][0]["questions"][0]["answer"] == "Термометр"  # operator view
        ack = ctl.call("command", {"type": "spin", "landed": 1})
        assert ack["state"]["rev"] == 1 and ack["state"]["round"]["answer"] == "Термометр"
        assert overlay.next()["round"]["answer"] is None
        bad = ctl.call("command", {"type": "judge", "correct": True, "expected_rev": 0})
        assert bad["status"] == 409 and bad["error"]["code"] == "stale_rev"
        bad = ctl.call("command", {"type": "fly"})
        assert bad["status"] == 400
        bad = ctl.call("command", {"type": "spin", "game": "nope"})
        assert bad["status"] == 404
        assert ctl.call("command", "not an object")["status"] == 400
        assert ctl.call("undo")["state"]["round"] is None
        assert server.state(game)["rev"] == 2
    finally:
        ctl.close()


def test_control_graphics_refuse_bad_data_with_the_schemas_key(server: Server, game: str):
    """The panel's socket takes graphics through the same schema as POST /api/graphics: a wrong
    field comes back with its catalog key and parameters, for the panel to say in its language."""
    ctl = Client(server, "/control", auth={"token": TOKEN})
    try:
        bad = ctl.call("graphics", {"action": "show", "graphic": "credits", "data": {"names": [{"role": "звук"}]}})
        assert bad["status"] == 400 and bad["error"]["code"] == "bad_field"
        assert (bad["error"]["key"], bad["error"]["params"]) == ("data.required", {"field": "names.name", "row": 1})
        ok = ctl.call("graphics", {"action": "show", "graphic": "credits", "data": {"names": ["Анна"]}})
        assert ok["graphics"]["credits"]["data"]["names"] == [{"name": "Анна"}]
    finally:
        ctl.close()


def cookie_of(http: requests.Session) -> str:
    return "; ".join(f"{k}={v}" for k, v in http.cookies.items())


def test_control_with_login_session_cookie(server: Server, game: str):
    cookie = cookie_of(login(server.url))
    sio = socketio.Client(reconnection=False)
    sio.connect(server.url, namespaces=["/control"], headers={"Cookie": cookie}, transports=["websocket"])
    try:
        assert sio.call("command", {"type": "spin", "landed": 2}, namespace="/control")["state"]["rev"] == 1
    finally:
        sio.disconnect()


def test_logout_refuses_the_cookie_and_closes_its_sockets(server: Server):
    s = login(server.url)
    old_cookie = cookie_of(s)
    closed = []
    sio = socketio.Client(reconnection=False)
    sio.on("disconnect", lambda *a: closed.append(True), namespace="/control")
    sio.connect(server.url, namespaces=["/control"], headers={"Cookie": old_cookie}, transports=["websocket"])
    s.post(server.url + "/control/logout", data={"csrf": panel_csrf(s, server.url)}, timeout=5)
    deadline = time.monotonic() + 3
    while not closed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert closed, "the logged-out panel's socket stayed open"
    stale = requests.get(server.url + "/api/games", headers={"Cookie": old_cookie}, timeout=5)
    assert stale.status_code == 401
    with pytest.raises(socketio.exceptions.ConnectionError):
        again = socketio.Client(reconnection=False)
        again.connect(server.url, namespaces=["/control"], headers={"Cookie": old_cookie}, transports=["websocket"])
