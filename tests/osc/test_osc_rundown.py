"""The rundown over real UDP: `/chgk/rundown/...` from a surface (liblo's oscsend and a raw
socket) acts on the current rundown through the same desk as the panel; the generic cues
`/chgk/event/rundown_take|out|done` reach a python-osc receiver; a subscribed surface gets
`/chgk/state/rundown/...` feedback (current, next, layers, auto-out seconds left)."""
from __future__ import annotations

import time

import pytest

from tests.support import wait_for

from .peers import Collector, Server, Surface, message, oscsend

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cues():
    collector = Collector()
    yield collector
    collector.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory, cues):
    srv = Server(tmp_path_factory.mktemp("osc-rundown"), [cues.port])
    yield srv
    srv.close()


def post(srv: Server, path: str, body: dict, status: int = 200) -> dict:
    r = srv.http.post(srv.base + path, json=body, timeout=10)
    assert r.status_code == status, r.text
    return r.json()


def test_a_rundown_driven_over_osc_with_cues_and_feedback(server, cues):
    rid = post(server, "/api/rundowns", {"name": "OSC"}, 201)["id"]
    host = post(server, f"/api/rundowns/{rid}/items",
                {"label": "Ведущий", "graphic": "lower-third", "layer": "straps", "data": {"title": "Борис"}}, 201)
    cap = post(server, f"/api/rundowns/{rid}/items", {"label": "Капитан", "graphic": "lower-third", "layer": "straps",
                                                      "out": 1500, "data": {"title": "{{captain}}"}}, 201)
    post(server, f"/api/rundowns/{rid}/items", {"label": "Итог", "graphic": "result", "layer": "full"}, 201)
    post(server, f"/api/rundowns/{rid}/actions", {"action": "focus", "item": host["id"]})  # the current rundown

    surface = Surface(server.osc_port)
    try:
        surface.send(message("/chgk/subscribe"))
        first = surface.recv(5, lambda m: m.address == "/chgk/state/rundown/current")
        assert first.params == ["Ведущий"]

        # take the focused item with a button press (oscsend, liblo), then out
        cues.clear()
        oscsend(server.osc_port, "/chgk/rundown/take")
        cues.wait("/chgk/event/rundown_take", ["Ведущий", "straps", host["id"], "lower-third"], timeout=10)
        surface.recv(5, lambda m: m.address == "/chgk/state/rundown/layer/straps" and m.params == ["Ведущий"])
        assert server.get("/api/graphics")["layers"]["straps"]["item"] == host["id"]
        time.sleep(0.21)  # a repeat of one address within 200 ms is a bounce
        oscsend(server.osc_port, "/chgk/rundown/out")
        cues.wait("/chgk/event/rundown_out", ["Ведущий", "straps", host["id"]], timeout=10)
        surface.recv(5, lambda m: m.address == "/chgk/state/rundown/layer/straps" and m.params == [""])

        # next + take by label from a raw socket; the auto-out item counts down and signals done
        surface.send(message("/chgk/rundown/next"))
        surface.recv(5, lambda m: m.address == "/chgk/state/rundown/next" and m.params == ["Итог"])
        time.sleep(0.21)
        surface.send(message("/chgk/rundown/take", ("s", "Капитан")))
        remaining = surface.recv(5, lambda m: m.address == "/chgk/state/rundown/remaining" and m.params[0] > 0)
        assert remaining.params[0] in (1, 2)
        cues.wait("/chgk/event/rundown_done", ["Капитан", "straps", cap["id"]], timeout=10)
        surface.recv(5, lambda m: m.address == "/chgk/state/rundown/remaining" and m.params == [0])
        assert server.get(f"/api/rundowns/{rid}")["program"] == {}

        # a release does nothing; an unknown item is refused and counted, nothing changes
        rev = server.get(f"/api/rundowns/{rid}")["rev"]
        surface.send(message("/chgk/rundown/go", ("i", 0)))
        surface.send(message("/chgk/rundown/take", ("s", "Нет такого")))
        wait_for(lambda: any(e["code"] == "unknown_item" for e in server.get("/api/osc/status")["listen"]["last_errors"]),
                 what="the refusal in the OSC status")
        assert server.get(f"/api/rundowns/{rid}")["rev"] == rev

        # variables for Companion's HTTP module, on the current rundown
        values = server.get("/api/rundowns/current/variables")
        assert values["current"] == "Капитан" and values["next"] == "Итог" and values["score"] == "0:0"
    finally:
        surface.send(message("/chgk/unsubscribe"))
        surface.close()
