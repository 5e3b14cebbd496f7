"""Rundowns over HTTP and Socket.IO against a real server: editing (ids and labels survive
reordering and duplication), refusals that change nothing (409 stale, 404 unknown, 422 locked, a
bad CSV row named by row and column), taking items (layers replace, steps, auto-out, take cued,
game-aware data from the public state only), the `graphics` payload carrying the program, two
panels seeing each other's edits, and a kill -9 that loses neither the rundown nor the program.
"""
from __future__ import annotations

import queue
import time
from typing import Any

import pytest
import socketio

from tests.support import TOKEN, Server, wait_for

pytestmark = pytest.mark.slow


class Rd:
    """One rundown on the server, with short helpers."""

    def __init__(self, srv: Server, name: str = "Шоу") -> None:
        self.srv = srv
        self.id = srv.api("POST", "/api/rundowns", {"name": name})["id"]

    def get(self) -> dict:
        return self.srv.api("GET", f"/api/rundowns/{self.id}")

    def add(self, **item: Any) -> dict:
        r = self.srv.call("POST", f"/api/rundowns/{self.id}/items", {"layer": "main", "out": "manual", **item})
        assert r.status_code == 201, r.text
        return r.json()

    def act(self, action: str, status: int = 200, **body: Any) -> dict:
        r = self.srv.call("POST", f"/api/rundowns/{self.id}/actions", {"action": action, **body})
        assert r.status_code == status, r.text
        return r.json()

    def labels(self) -> list[tuple[str, str, str]]:
        return [(s["name"], i["id"], i["label"]) for s in self.get()["segments"] for i in s["items"]]


@pytest.fixture
def rd(shared_server: Server) -> Rd:
    return Rd(shared_server)


def test_items_keep_their_ids_and_labels_through_reordering_and_duplicating(rd: Rd) -> None:
    a = rd.add(segment="Начало", label="Ведущий", graphic="lower-third", data={"title": "Борис"})
    b = rd.add(segment="Начало", label="Капитан", graphic="lower-third", data={"title": "{{captain}}"})
    c = rd.add(segment="Финал", label="Итог", graphic="result")
    assert rd.labels() == [("Начало", a["id"], "Ведущий"), ("Начало", b["id"], "Капитан"), ("Финал", c["id"], "Итог")]
    rd.srv.api("POST", f"/api/rundowns/{rd.id}/items/{b['id']}/move", {"index": 0})
    rd.srv.api("POST", f"/api/rundowns/{rd.id}/items/{c['id']}/move", {"index": 1, "segment": "Начало"})
    assert rd.labels() == [("Начало", b["id"], "Капитан"), ("Начало", c["id"], "Итог"), ("Начало", a["id"], "Ведущий")]
    rd.srv.api("PATCH", f"/api/rundowns/{rd.id}/items/{a['id']}", {"label": "Ведущий вечера"})
    doc = rd.srv.api("POST", f"/api/rundowns/{rd.id}/items/{a['id']}/duplicate")
    ids = [i["id"] for s in doc["segments"] for i in s["items"]]
    assert ids[:3] == [b["id"], c["id"], a["id"]] and len(set(ids)) == 4
    assert [i["label"] for s in doc["segments"] for i in s["items"]][-2:] == ["Ведущий вечера"] * 2
    seg = doc["segments"][0]["id"]
    rd.srv.api("PATCH", f"/api/rundowns/{rd.id}/segments/{seg}", {"name": "Открытие"})
    doc = rd.srv.api("POST", f"/api/rundowns/{rd.id}/segments/{seg}/duplicate")
    assert [s["name"] for s in doc["segments"]] == ["Открытие", "Открытие (2)", "Финал"]
    assert doc["segments"][0]["items"][0]["id"] == b["id"]


def test_refusals_change_nothing(rd: Rd) -> None:
    item = rd.add(label="Ведущий", graphic="lower-third", data={"title": "Борис"})
    rev = rd.get()["rev"]
    # 409: an edit based on an old rev
    r = rd.srv.call("PATCH", f"/api/rundowns/{rd.id}/items/{item['id']}", {"label": "X", "expected_rev": rev - 1})
    assert r.status_code == 409 and r.json()["error"]["code"] == "stale_rundown"
    r = rd.srv.call("POST", f"/api/rundowns/{rd.id}/actions", {"action": "take", "item": item["id"], "expected_rev": rev - 1})
    assert r.status_code == 409
    # 404: unknown item, by id or label; unknown rundown
    assert rd.srv.call("PATCH", f"/api/rundowns/{rd.id}/items/i999", {"label": "X"}).status_code == 404
    r = rd.srv.call("POST", f"/api/rundowns/{rd.id}/actions", {"action": "take", "item": "Нет такого"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_item"
    assert rd.srv.call("GET", "/api/rundowns/r999").status_code == 404
    # 400: bad fields say which
    for bad in ({"graphic": "nope"}, {"graphic": "lower-third", "out": 10}, {"graphic": "lower-third", "layer": "Straps!"},
                {"graphic": "lower-third", "data": {"title": "{{password}}"}}, {"graphic": "lower-third", "colour": 1}):
        r = rd.srv.call("POST", f"/api/rundowns/{rd.id}/items", bad)
        assert r.status_code == 400, (bad, r.text)
        assert r.json()["error"]["message"]
    assert rd.get()["rev"] == rev
    # 422: a locked rundown refuses every edit, but still takes
    rd.act("lock")
    rev = rd.get()["rev"]
    for method, path, body in (("PATCH", f"/items/{item['id']}", {"label": "X"}), ("POST", "/items", {"graphic": "result"}),
                               ("DELETE", f"/items/{item['id']}", None), ("POST", f"/items/{item['id']}/duplicate", None),
                               ("PATCH", "", {"name": "X"})):
        r = rd.srv.call(method, f"/api/rundowns/{rd.id}{path}", body)
        assert r.status_code == 422 and r.json()["error"]["code"] == "locked", (method, path, r.text)
    r = rd.srv.call("POST", f"/api/rundowns/{rd.id}/import", data="graphic\nresult\n".encode())
    assert r.status_code == 422
    assert rd.get()["rev"] == rev
    assert "main" in rd.act("take", item=item["id"])["program"]
    rd.act("all_out")
    rd.act("unlock")


def test_a_bad_csv_row_is_named_and_nothing_is_imported(rd: Rd) -> None:
    rd.add(segment="Было", label="Старое", graphic="result")
    before = rd.get()
    bad_rows = [
        ("segment,label,graphic,layer,out,data.title\nА,x,lower-third,straps,manual,Борис\nБ,y,nope,straps,manual,\n", 3, "graphic"),
        ("segment,label,graphic,layer,out\nА,x,lower-third,straps,manual\nБ,y,result,straps,soon\n", 3, "out"),
        ("segment,label,graphic,layer,out\nА,x,lower-third,Big Layer,manual\n", 2, "layer"),
        ("segment,label,graphic,layer,out,data.title\nА,x,lower-third,s,manual,{{nobody}}\n", 2, "data.title"),
        ("segment,label,graphic,colour\nА,x,result,red\n", 1, "colour"),
        ("segment,label,graphic\nА,x,\n", 2, "graphic"),
    ]
    for text, row, column in bad_rows:
        r = rd.srv.call("POST", f"/api/rundowns/{rd.id}/import", data=text.encode())
        assert r.status_code == 400, r.text
        err = r.json()["error"]
        assert (err["code"], err["row"], err["column"]) == ("bad_csv", row, column), err
        assert f"Row {row}" in err["message"]
    r = rd.srv.call("POST", f"/api/rundowns/{rd.id}/import", data=b"\xff\xfegraphic\n")
    assert r.status_code == 400 and "UTF-8" in r.json()["error"]["message"]
    assert rd.get()["rev"] == before["rev"] and rd.get()["segments"] == before["segments"]


def test_csv_round_trip_replaces_or_appends(rd: Rd) -> None:
    text = ("\ufeffsegment,label,graphic,layer,out,data.title,data.subtitle,data.photo\n"
            "Начало,Ведущий,lower-third,straps,manual,\"Крюк, Борис\",ведущий,m_1a2b\n"
            "Начало,Капитан,lower-third,straps,8000,{{captain}},капитан,\n"
            "Перерыв,Заставка,result,full,none,,,\n")
    r = rd.srv.call("POST", f"/api/rundowns/{rd.id}/import", data=text.encode())
    assert r.status_code == 200 and r.json()["items"] == 3
    doc = rd.get()
    assert [(s["name"], [i["label"] for i in s["items"]]) for s in doc["segments"]] == [
        ("Начало", ["Ведущий", "Капитан"]), ("Перерыв", ["Заставка"])]
    first = doc["segments"][0]["items"][0]
    assert first["data"] == {"title": "Крюк, Борис", "subtitle": "ведущий", "photo": "m_1a2b"}
    assert doc["segments"][0]["items"][1]["out"] == 8000 and doc["segments"][1]["items"][0]["out"] == "none"
    exported = rd.srv.call("GET", f"/api/rundowns/{rd.id}/export")
    assert exported.headers["Content-Type"].startswith("text/csv")
    other = Rd(rd.srv, "Копия")
    assert rd.srv.call("POST", f"/api/rundowns/{other.id}/import", data=exported.content).json()["items"] == 3
    strip = lambda d: [(s["name"], [(i["label"], i["graphic"], i["layer"], i["out"], i["data"]) for i in s["items"]])
                       for s in d["segments"]]
    assert strip(other.get()) == strip(doc)
    r = rd.srv.call("POST", f"/api/rundowns/{other.id}/import?append=1", data=b"segment,graphic\n\xd0\xa4,result\n")
    assert r.json()["items"] == 1 and len([i for s in other.get()["segments"] for i in s["items"]]) == 4


def test_csv_switches_are_true_or_false(rd: Rd) -> None:
    """A show graphic's switch (the slate's and bug's `qr`, `count_up`, `loop`) is read as true or
    false from the spreadsheet, and exported back the same; anything else names its cell."""
    text = ("graphic,label,data.qr,data.qr_caption,data.count_up,data.media\n"
            "slate,Перерыв,true,Следите за игрой,TRUE,\n"
            "bug,Код,false,,,m_logo\n")
    r = rd.srv.call("POST", f"/api/rundowns/{rd.id}/import", data=text.encode())
    assert r.status_code == 200, r.text
    items = [i for s in rd.get()["segments"] for i in s["items"]]
    assert [i["data"] for i in items] == [{"qr": True, "qr_caption": "Следите за игрой", "count_up": True},
                                          {"qr": False, "media": "m_logo"}]
    exported = rd.srv.call("GET", f"/api/rundowns/{rd.id}/export").text
    assert "Перерыв,slate,main,manual,true,Следите за игрой,true,\r\n" in exported, exported
    other = Rd(rd.srv, "Копия с кодом")
    assert rd.srv.call("POST", f"/api/rundowns/{other.id}/import", data=exported.encode()).status_code == 200
    assert [i["data"] for s in other.get()["segments"] for i in s["items"]] == [i["data"] for i in items]
    before = rd.get()
    r = rd.srv.call("POST", f"/api/rundowns/{rd.id}/import", data="graphic,data.qr\nbug,maybe\n".encode())
    err = r.json()["error"]
    assert r.status_code == 400 and (err["row"], err["column"]) == (2, "data.qr"), r.text
    assert "'qr' must be true or false" in err["message"]
    assert rd.get()["rev"] == before["rev"]


def test_people_csv(shared_server: Server) -> None:
    text = "name,title,photo\nБорис Крюк,ведущий,host.png\nАнна,капитан,\n"
    r = shared_server.call("POST", "/api/people/import", data=text.encode())
    assert r.status_code == 200, r.text
    assert shared_server.api("GET", "/api/people")["people"][0] == {"name": "Борис Крюк", "title": "ведущий", "photo": "host.png"}
    assert shared_server.call("GET", "/api/people?format=csv").text.replace("\r\n", "\n") == text
    r = shared_server.call("POST", "/api/people/import", data="name,title,age\nX,Y,3\n".encode())
    assert r.status_code == 400 and r.json()["error"]["column"] == "age"
    r = shared_server.call("POST", "/api/people/import", data="name,title\nX,Y\n,Z\n".encode())
    assert (r.json()["error"]["row"], r.json()["error"]["column"]) == (3, "name")
    assert len(shared_server.api("GET", "/api/people")["people"]) == 2


def test_taking_items_layers_steps_and_cues(rd: Rd) -> None:
    srv = rd.srv
    host = rd.add(label="Ведущий", graphic="lower-third", layer="straps", data={"title": "Борис"})
    cap = rd.add(label="Капитан", graphic="lower-third", layer="straps", data={"title": "{{captain}}", "subtitle": "{{experts}}"})
    card = rd.add(label="Вопрос", graphic="question", layer="cards")
    res = rd.add(label="Итог", graphic="result", layer="full")
    doc = rd.act("take", item=host["id"])
    assert doc["program"]["straps"]["item"] == host["id"]
    # same layer: the captain's strap replaces the host's, filled from the game at take time
    doc = rd.act("take", item="Капитан")
    assert list(doc["program"]) == ["straps"] and doc["program"]["straps"]["item"] == cap["id"]
    g = srv.api("GET", "/api/graphics")
    assert g["layers"]["straps"]["data"] == {"title": "Анна", "subtitle": "Команда Демидова"}
    assert g["graphics"]["lower-third"]["item"] == cap["id"]  # the graphic's own page shows it too
    # the item keeps the template, not the game's value
    assert next(i for s in rd.get()["segments"] for i in s["items"] if i["id"] == cap["id"])["data"]["title"] == "{{captain}}"
    # go (Space): a card in steps card → text → answer, then out
    rd.act("focus", item=card["id"])
    steps = [rd.act("go")["program"]["cards"]["step"] for _ in range(3)]
    assert steps == [0, 1, 2]
    assert srv.api("GET", "/api/graphics")["layers"]["cards"]["data"]["step"] == "answer"
    assert "cards" not in rd.act("go")["program"]
    assert rd.act("out", 422, item=host["id"])["error"]["code"] == "not_on_air"
    # cue two items, take them together; cues are cleared
    rd.act("cue", item=card["id"])
    rd.act("cue", item=res["id"])
    doc = rd.act("take_cued")
    assert {k: v["item"] for k, v in doc["program"].items()} == {"straps": cap["id"], "cards": card["id"], "full": res["id"]}
    assert not any(i["cued"] for s in doc["segments"] for i in s["items"])
    assert rd.act("take_cued", 422)["error"]["code"] == "nothing_cued"
    # update (F5): an edit goes on air in place, same shown_at
    shown = srv.api("GET", "/api/graphics")["layers"]["straps"]["shown_at"]
    srv.api("PATCH", f"/api/rundowns/{rd.id}/items/{cap['id']}", {"data": {"title": "Капитан: {{captain}}"}})
    rd.act("update", item=cap["id"])
    layer = srv.api("GET", "/api/graphics")["layers"]["straps"]
    assert layer["data"]["title"] == "Капитан: Анна" and layer["shown_at"] == shown
    # all out: every layer of this rundown, nothing else
    srv.api("POST", "/api/graphics", {"action": "show", "graphic": "scoreboard", "data": {}})
    doc = rd.act("all_out")
    assert doc["program"] == {}
    g = srv.api("GET", "/api/graphics")
    assert g["layers"] == {} and list(g["graphics"]) == ["scoreboard"]
    srv.api("POST", "/api/graphics", {"action": "clear", "graphic": "scoreboard"})


def test_game_aware_items_use_only_the_public_state(server: Server) -> None:
    rd = Rd(server)
    player = rd.add(label="Суперблиц", graphic="lower-third", data={"title": "{{player}}"})
    viewer = rd.add(label="Зритель", graphic="lower-third", layer="v", data={"title": "{{viewer}}", "subtitle": "{{viewer_city}}"})
    r = rd.act("take", 422, item=player["id"])
    assert r["error"]["code"] == "game_field_missing" and "superblitz" in r["error"]["message"]
    assert rd.act("take", 422, item=viewer["id"])["error"]["code"] == "game_field_missing"  # no round yet
    assert server.api("GET", "/api/graphics")["layers"] == {}
    state = server.play("g1", "spin", landed=1)
    author = state["round"]["author"]
    doc = rd.act("take", item=viewer["id"])
    assert server.api("GET", "/api/graphics")["layers"]["v"]["data"] == {"title": author["name"], "subtitle": author["city"]}
    assert doc["program"]["v"]["item"] == viewer["id"]
    # an answer is never put in an item's data: the question card takes text and answer from
    # the public state; a token for them does not exist
    r = server.call("POST", f"/api/rundowns/{rd.id}/items", {"graphic": "lower-third", "data": {"title": "{{answer}}"}})
    assert r.status_code == 400


def test_auto_out_and_the_done_signal(server: Server) -> None:
    rd = Rd(server)
    strap = rd.add(label="Капитан", graphic="lower-third", layer="straps", out=800, data={"title": "{{captain}}"})
    panel = Sock(server, "/control", {"token": TOKEN})
    overlay = Sock(server, "/overlay")
    try:
        doc = rd.act("take", item=strap["id"])
        entry = doc["program"]["straps"]
        assert entry["expires_at"] - entry["shown_at"] == 800
        done = panel.wait("rundown_done")
        assert done == {"rundown": rd.id, "item": strap["id"], "label": "Капитан", "graphic": "lower-third", "layer": "straps"}
        assert overlay.wait("rundown_done")["item"] == strap["id"]
        wait_for(lambda: rd.get()["program"] == {}, what="the strap out of the program")
        assert server.api("GET", "/api/graphics")["graphics"] == {}
    finally:
        panel.close()
        overlay.close()


class Sock:
    def __init__(self, srv: Server, ns: str, auth: Any = None) -> None:
        self.sio = socketio.Client(reconnection=False)
        self.ns = ns
        self.got: queue.Queue = queue.Queue()
        for name in ("graphics", "rundown", "rundown_done", "preview"):
            self.sio.on(name, lambda data, name=name: self.got.put((name, data)), namespace=ns)
        self.sio.connect(srv.url, namespaces=[ns], auth=auth, transports=["websocket"], wait_timeout=10)

    def wait(self, name: str, check: Any = lambda d: True, timeout: float = 20) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                got, data = self.got.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                break
            if got == name and check(data):
                return data
        raise AssertionError(f"no {name} in {timeout} s")

    def call(self, event: str, data: Any) -> Any:
        return self.sio.call(event, data, namespace=self.ns, timeout=10)

    def close(self) -> None:
        self.sio.disconnect()


def test_socket_actions_and_variables_for_a_stream_deck(shared_server: Server) -> None:
    rd = Rd(shared_server, "Дека")
    a = rd.add(label="Ведущий", graphic="lower-third", layer="straps", data={"title": "Борис"})
    rd.add(label="Итог", graphic="result", layer="full")
    deck = Sock(shared_server, "/control", {"token": TOKEN})
    try:
        rev = rd.get()["rev"]
        answer = deck.call("rundown", {"rundown": rd.id, "action": "focus", "item": "Ведущий", "expected_rev": rev})
        assert answer["focus"] == a["id"]
        # no rundown named: the current one, the one just operated
        assert "straps" in deck.call("rundown", {"action": "go"})["program"]
        values = deck.call("rundown_variables", {})
        assert (values["rundown"], values["current"], values["next"], values["layers"]) == \
            (rd.id, "Ведущий", "Итог", {"straps": "Ведущий"})
        stale = deck.call("rundown", {"rundown": rd.id, "action": "out", "expected_rev": rev})
        assert stale["status"] == 409 and stale["error"]["code"] == "stale_rundown"
        assert deck.call("rundown", {"rundown": "r999", "action": "go"})["status"] == 404
        assert deck.call("rundown", {"action": "all_out"})["program"] == {}
    finally:
        deck.close()


def test_two_panels_see_each_others_edits_and_overlays_get_the_program(shared_server: Server) -> None:
    rd = Rd(shared_server, "Общий")
    one, two = Sock(shared_server, "/control", {"token": TOKEN}), Sock(shared_server, "/control", {"token": TOKEN})
    try:
        item = rd.add(label="Ведущий", graphic="lower-third", layer="straps", data={"title": "Борис"})
        seen = two.wait("rundown", lambda d: d["id"] == rd.id and any(i["id"] == item["id"] for s in d["segments"] for i in s["items"]))
        shared_server.api("PATCH", f"/api/rundowns/{rd.id}/items/{item['id']}", {"label": "Ведущий вечера"})
        got = one.wait("rundown", lambda d: d["id"] == rd.id and d["rev"] > seen["rev"])
        assert got["segments"][0]["items"][0]["label"] == "Ведущий вечера"
        # the panel that still shows the old rev is refused, not silently overwritten
        r = shared_server.call("PATCH", f"/api/rundowns/{rd.id}/items/{item['id']}",
                               {"label": "Старое", "expected_rev": seen["rev"]})
        assert r.status_code == 409
        rd.act("take", item=item["id"])
        # a newly connected overlay has the program at once, in `graphics`
        late = Sock(shared_server, "/overlay")
        try:
            g = late.wait("graphics")
            assert g["layers"]["straps"]["item"] == item["id"] and g["layers"]["straps"]["data"]["title"] == "Борис"
        finally:
            late.close()
        rd.act("all_out")
    finally:
        one.close()
        two.close()


def test_preview_shows_the_focused_item_and_leaves_program_alone(shared_server: Server) -> None:
    rd = Rd(shared_server, "Превью")
    a = rd.add(label="A", graphic="lower-third", layer="straps", data={"title": "Первый"})
    b = rd.add(label="B", graphic="result", layer="full")
    prev = Sock(shared_server, "/overlay", {"preview": True, "token": TOKEN})  # an operator's view
    plain = Sock(shared_server, "/overlay")
    try:
        rd.act("take", item=a["id"])
        rd.act("focus", item=b["id"])
        p = prev.wait("preview", lambda d: d.get("item") == b["id"])
        assert p["graphic"] == "result" and p["layer"] == "full"
        assert rd.get()["program"]["straps"]["item"] == a["id"] and "full" not in rd.get()["program"]
        # the plain overlay never joined the preview room (it would have had it by now)
        assert all(name != "preview" for name, _ in list(plain.got.queue))
        rd.act("all_out")
    finally:
        prev.close()
        plain.close()


def test_a_kill_loses_neither_the_rundown_nor_the_program(server: Server) -> None:
    rd = Rd(server)
    strap = rd.add(segment="Начало", label="Ведущий", graphic="lower-third", layer="straps", data={"title": "Борис"})
    rd.add(segment="Финал", label="Итог", graphic="result", layer="full")
    rd.act("lock")
    rd.act("focus", item=strap["id"])
    before = rd.act("take", item=strap["id"])
    graphics = server.api("GET", "/api/graphics")
    server.kill()
    server.start()
    after = rd.get()
    drop = lambda d: {k: v for k, v in d.items() if k != "server_now"}
    assert drop(after) == drop(before)
    assert after["locked"] and after["focus"] == strap["id"] and after["program"]["straps"]["item"] == strap["id"]
    g = server.api("GET", "/api/graphics")
    assert g["layers"] == graphics["layers"] and g["seq"] == graphics["seq"]
    # and it goes on from there: rev still guards, out still works
    assert rd.act("out", item=strap["id"], expected_rev=after["rev"])["program"] == {}
