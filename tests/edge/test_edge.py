"""Edges fed by Redis: a writer (`serve --redis`), Debian's redis-server and `chgk-overlay edge`
processes, all real, on free ports. What an edge serves, that it takes no change, that nothing
secret reaches Redis, and the faults: Redis restarted empty, the writer killed, a client that
never reads, Redis missing when the edge starts."""
from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis as redis_py
import requests
import socketio
import websocket

from tests.faults.helpers import tv_spec
from tests.support import (EDGE_MODE, Redis, Server, close_client, edge_status, free_port, handle_in_order,
                           scale_out, start_edge, wait_for)

pytestmark = pytest.mark.slow
MODE = EDGE_MODE


class Overlay:
    """An /overlay client that remembers every state and graphics message it got."""

    def __init__(self, url: str, reconnection: bool = False) -> None:
        self.states: list[dict | None] = []
        self.graphics: list[dict] = []
        self.sio = handle_in_order(socketio.Client(reconnection=reconnection, reconnection_delay=0.2,
                                                   reconnection_delay_max=1))  # states kept in the order they came
        self.sio.on("state", self.states.append, namespace="/overlay")
        self.sio.on("graphics", self.graphics.append, namespace="/overlay")
        self.sio.connect(url, namespaces=["/overlay"], transports=["websocket"], wait_timeout=10)

    def rev(self) -> int:
        last = self.states[-1] if self.states else None
        return -1 if last is None else last["rev"]

    def wait_rev(self, rev: int, timeout: float = 30, game: str | None = None) -> dict:
        """The last state once it is at `rev` or later — of `game` when given: a client that has just
        joined may first be sent the game that was on air a moment ago."""
        def there() -> bool:
            last = self.states[-1] if self.states else None
            return last is not None and last["rev"] >= rev and game in (None, last["id"])
        wait_for(there, timeout, f"rev {rev} of {game or 'the game'} at the overlay (has {self.rev()})")
        return self.states[-1]

    def close(self) -> None:
        close_client(self.sio)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    """Redis, a writer with the demo game on air, and two edges."""
    tmp = tmp_path_factory.mktemp("edges")
    with scale_out(tmp, edges=2) as so:
        yield {"redis": so.redis, "writer": so.writer, "edges": so.edges, "tmp": tmp}


def test_an_edge_serves_what_the_writer_shows(world: dict):
    writer, edges = world["writer"], world["edges"]
    game = writer.create(tv_spec("На краю"), on_air=True)
    overlays = [Overlay(e.url) for e in edges]
    try:
        for o in overlays:
            o.wait_rev(0, game=game)
        writer.play(game, "spin", landed=3)
        writer.play(game, "start_timer")
        public = writer.api("GET", f"/api/games/{game}/public")
        for edge, o in zip(edges, overlays):
            got = o.wait_rev(public["rev"], game=game)
            assert got["epoch"] == public["epoch"] and got["round"]["sector"] == 3
            assert got["timer"]["running"] and got["timer"]["ends_at"] == public["timer"]["ends_at"]
            assert got["round"]["answer"] is None
            r = requests.get(f"{edge.url}/api/games/{game}/public", timeout=10).json()
            assert r["rev"] == public["rev"] and r["round"] == public["round"]
            listed = requests.get(edge.url + "/api/games", timeout=10).json()
            assert listed["on_air"] == game and game in {g["id"] for g in listed["games"]}
        # graphics reach the edges' overlays too
        writer.api("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                              "data": {"title": "Анна Иванова", "subtitle": "капитан"}})
        for edge, o in zip(edges, overlays):
            wait_for(lambda: o.graphics and "lower-third" in o.graphics[-1]["graphics"], what="graphics at the edge")
            assert "lower-third" in requests.get(edge.url + "/api/graphics", timeout=10).json()["graphics"]
        # the pages are served by the edge itself
        assert requests.get(edges[0].url + "/overlays/scoreboard", timeout=10).status_code == 200
        assert "live.js" in requests.get(edges[0].url + "/live", timeout=10).text
        assert requests.get(edges[0].url + "/live/qr.svg", timeout=10).text.startswith("<svg")
    finally:
        for o in overlays:
            o.close()


def test_an_edge_takes_no_change(world: dict):
    edge, writer = world["edges"][0], world["writer"]
    before = writer.api("GET", "/api/games")
    auth = {"Authorization": f"Bearer {writer.token}"}
    for method, path, body in (("POST", "/api/games/g1/commands", {"type": "spin"}),
                               ("POST", "/api/games", {"rules": "tv"}), ("PUT", "/api/on-air", {"game": "g1"}),
                               ("POST", "/api/graphics", {"action": "hide", "graphic": "timer"}),
                               ("POST", "/control/login", None), ("GET", "/control/", None)):
        r = requests.request(method, edge.url + path, json=body, headers=auth, timeout=10)
        assert r.status_code == 405, (method, path, r.status_code)
        assert r.json()["error"]["code"] == "read_only_edge" and "writer" in r.json()["error"]["message"]
    assert requests.get(edge.url + "/api/games/g1", headers=auth, timeout=10).status_code == 404  # operator view
    sio = socketio.Client(reconnection=False)
    with pytest.raises(socketio.exceptions.ConnectionError):
        sio.connect(edge.url, namespaces=["/control"], auth={"token": writer.token}, transports=["websocket"],
                    wait_timeout=10)
    assert writer.api("GET", "/api/games") == before


def test_no_answer_or_unplayed_question_reaches_redis(world: dict):
    writer, redis = world["writer"], world["redis"]
    spec = tv_spec("Тайны")
    for sector in spec["sectors"]:  # texts no other game of this module has
        for i, q in enumerate(sector["questions"]):
            q.update(text=f"Тайный вопрос {sector['number']}.{i}", answer=f"Тайный ответ {sector['number']}.{i}")
    game = writer.create(spec, on_air=True)
    writer.play(game, "spin", landed=4)
    writer.play(game, "start_timer")
    edge = world["edges"][0]
    wait_for(lambda: edge_status(edge)["revs"].get(game) == 2, what="the edge to have rev 2")
    client = redis_py.Redis(port=redis.port, decode_responses=True)
    stored = " ".join(str(client.get(k) if client.type(k) == "string" else client.hgetall(k))
                      for k in client.keys("*"))
    client.close()
    read = spec["sectors"][3]["questions"][0]
    assert read["text"] in stored  # the question being played is public once read
    assert read["answer"] not in stored  # its answer is not, before the verdict
    for sector in spec["sectors"]:
        for q in sector["questions"]:
            assert q["answer"] not in stored
            if q is not read:
                assert q["text"] not in stored, q["text"]
    writer.play(game, "judge", correct=True)
    wait_for(lambda: read["answer"] in json.dumps(requests.get(f"{edge.url}/api/games/{game}/public", timeout=10)
                                                  .json(), ensure_ascii=False), what="the answer after the verdict")


def test_gevent_edge_serves_too(world: dict):
    writer = world["writer"]
    started: list = []
    edge = start_edge(world["tmp"], "edge-gevent", world["redis"].url, mode="gevent", started=started)
    try:
        game = writer.create(tv_spec("gevent"), on_air=True)
        o = Overlay(edge.url)
        try:
            o.wait_rev(0, game=game)
            writer.play(game, "spin", landed=2)
            assert o.wait_rev(1, game=game)["round"]["sector"] == 2
        finally:
            o.close()
    finally:
        edge.stop()


def test_a_threading_writer_publishes_too(tmp_path: Path):
    """The relay's task under the writer's other modes (here threading: a real thread)."""
    with scale_out(tmp_path, edges=1, mode="threading") as so:
        o = Overlay(so.edges[0].url)
        try:
            o.wait_rev(0)
            so.writer.play("g1", "spin", landed=8)
            assert o.wait_rev(1)["round"]["sector"] == 8
        finally:
            o.close()


# faults: each with processes of its own ----------------------------------------------------------

@pytest.fixture
def own(tmp_path: Path) -> Iterator[dict]:
    with scale_out(tmp_path) as so:
        yield {"redis": so.redis, "writer": so.writer, "tmp": tmp_path, "started": so.started}


def test_redis_restarted_empty_edges_resync(own: dict):
    redis, writer = own["redis"], own["writer"]
    edge = start_edge(own["tmp"], "edge", redis.url, started=own["started"])
    o = Overlay(edge.url)
    try:
        o.wait_rev(0)
        redis.kill()
        writer.play("g1", "spin", landed=5)  # the writer goes on without Redis
        wait_for(lambda: not edge_status(edge)["redis"], what="the edge to notice Redis is gone")
        assert o.rev() == 0 and o.sio.connected  # the edge keeps serving the last state
        redis.start()  # same port, nothing stored
        back = time.monotonic()
        got = o.wait_rev(1)
        print(f"stale for {time.monotonic() - back:.2f} s after Redis came back")
        assert got["round"]["sector"] == 5
        writer.play("g1", "start_timer")  # and the live path works again
        assert o.wait_rev(2)["timer"]["running"]
    finally:
        o.close()
    assert "cannot reach Redis" in edge.output()


def test_writer_killed_edges_keep_serving_then_take_the_new_epoch(own: dict):
    writer = own["writer"]
    edge = start_edge(own["tmp"], "edge", own["redis"].url, started=own["started"])
    o = Overlay(edge.url)
    try:
        writer.play("g1", "spin", landed=6)
        first = o.wait_rev(1)
        writer.kill()
        for _ in range(3):  # several heartbeats' worth of silence: still serving, still connected
            time.sleep(0.5)
            assert requests.get(edge.url + "/api/games/g1/public", timeout=10).json()["rev"] == 1
        assert o.sio.connected
        writer.start(timeout=120)
        state = wait_for(lambda: o.states[-1]["epoch"] > first["epoch"] and o.states[-1], what="the new epoch")
        assert state["rev"] == 1 and state["round"]["sector"] == 6  # the same facts, from the restarted writer
        writer.play("g1", "start_timer")
        assert o.wait_rev(2)["epoch"] == state["epoch"]
    finally:
        o.close()


def test_a_client_that_never_reads_holds_up_no_one(own: dict):
    writer = own["writer"]
    edge = start_edge(own["tmp"], "edge", own["redis"].url, started=own["started"])
    # a websocket that joins /overlay with a tiny receive buffer, then never reads again
    stuck = websocket.create_connection(f"ws://127.0.0.1:{edge.port}/socket.io/?EIO=4&transport=websocket",
                                        timeout=10, sockopt=((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096),))
    assert stuck.recv().startswith("0")  # Engine.IO open
    stuck.send("40/overlay,")
    wait_for(lambda: edge_status(edge)["clients"] >= 1, what="the stuck client to join")
    o = Overlay(edge.url)
    try:
        seq = o.graphics[-1]["seq"] if o.graphics else 0
        for i in range(300):  # ~2 MB of graphics: far more than the stuck client's buffers hold
            # a ticker of 12 long items: ~7 kB, within the schema's bounds (overlay/schema)
            writer.api("POST", "/api/graphics", {"action": "show", "graphic": "ticker",
                                                  "data": {"items": [f"{i} " + "Ж" * 280] + ["Ж" * 290] * 11}})
        wait_for(lambda: o.graphics and o.graphics[-1]["seq"] >= seq + 300, what="every graphics change")
        assert o.graphics[-1]["graphics"]["ticker"]["data"]["items"][0].startswith("299 ")
        if MODE == "eventlet":  # the stuck socket's buffer filled: what it missed waits behind it
            status = edge_status(edge)
            assert status["fanout"]["waited"] > 0, status
        writer.play("g1", "spin", landed=2)
        assert o.wait_rev(1)["round"]["sector"] == 2
    finally:
        o.close()
        stuck.close()


@pytest.fixture
def started() -> Iterator[list]:
    """Processes a test starts itself; stopped at its end, the last started first."""
    procs: list = []
    yield procs
    for proc in reversed(procs):
        proc.stop()


def test_edge_started_without_redis_says_so_and_retries(started: list, tmp_path: Path):
    port = free_port()
    url = f"redis://127.0.0.1:{port}/0"
    edge = Server(tmp_path / "edge", kind="edge", redis=url)
    started.append(edge)
    edge.start(timeout=120)
    wait_for(lambda: f"cannot reach Redis at {url}" in edge.output(), what="the edge to say Redis is missing")
    status = edge_status(edge)
    assert status["synced"] is False and status["redis"] is False
    assert requests.get(edge.url + "/api/games", timeout=10).status_code == 503
    sio = socketio.Client(reconnection=False)
    with pytest.raises(socketio.exceptions.ConnectionError):  # no blank state for an overlay on air
        sio.connect(edge.url, namespaces=["/overlay"], transports=["websocket"], wait_timeout=10)
    redis = Redis(tmp_path / "late-redis", port=port)
    started.append(redis)
    redis.start()
    writer = Server(tmp_path / "late-writer", redis=url)
    started.append(writer)
    try:
        writer.start(timeout=120)
        wait_for(lambda: edge_status(edge)["synced"], what="the edge to read the state once Redis is there")
        o = Overlay(edge.url)
        assert o.wait_rev(0)["id"] == "g1"
        o.close()
        assert "reachable again" in edge.output()
    finally:
        writer.stop()
        redis.stop()


def test_league_views_reach_the_edges(world: dict):
    writer, edge = world["writer"], world["edges"][0]
    notices: list[Any] = []
    o = Overlay(edge.url)
    o.sio.on("league", notices.append, namespace="/overlay")
    try:
        sid = writer.api("POST", "/api/seasons", {"name": "Весна 2026", "qualifying_days": 2})["id"]
        wait_for(lambda: sid in {s["id"] for s in requests.get(edge.url + "/api/public/league", timeout=10)
                                 .json()["seasons"]}, what="the season listed at the edge")
        assert requests.get(f"{edge.url}/api/public/seasons/{sid}", timeout=10).json() == \
            requests.get(f"{writer.url}/api/public/seasons/{sid}", timeout=10).json()
        wait_for(lambda: notices, what="a league notice at the edge's overlay")
        assert requests.get(f"{edge.url}/api/public/seasons/nope", timeout=10).status_code == 404
    finally:
        o.close()
