"""The as-run log (`/api/games/<id>/as-run`, `/api/rundowns/<id>/as-run`) against a real server
whose generic OSC cues a real UDP receiver collects: the log lists what went to air and out at
the times the API answered, the cues the receiver got, in its order, and the sponsor's round."""
from __future__ import annotations

import csv
import io
from typing import Iterator

import pytest

from overlay.osc.events import EVENTS
from tests.osc.peers import Collector
from tests.support import Server, wait_for


def tv_spec(minute: int = 1500) -> dict:
    sectors = [{"number": n, "kind": "regular", "questions": [
        {"text": f"Вопрос {n}", "answer": f"Ответ {n}", "author": {"name": f"Автор {n}", "city": "Киев"}}]}
        for n in range(1, 14)]
    sectors[12]["questions"][0]["author"] = {"name": "ООО «Спонсор»", "city": "Москва"}
    return {"rules": "tv", "title": "Эфир для журнала", "experts": {"name": "Знатоки", "players": ["А", "Б", "В"],
                                                                  "captain": "А"},
            "sectors": sectors, "timers": {"minute": minute}}


@pytest.fixture(scope="module")
def cues() -> Iterator[Collector]:
    c = Collector()
    yield c
    c.close()


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory, cues: Collector) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("asrun") / "data", demo=False,
               args=("--osc-target", f"127.0.0.1:{cues.port}")).start()
    yield s
    s.stop()


def generic(cue: dict) -> tuple[str, list]:
    """An as-run cue row as the generic namespace sends it: /chgk/event/<name> <fields in order>."""
    return f"/chgk/event/{cue['cue']}", [cue["args"].get(name) for name, _ in EVENTS[cue["cue"]].fields]


def test_the_as_run_log_is_what_went_to_air_and_what_osc_sent(srv: Server, cues: Collector) -> None:
    game = srv.create(tv_spec(), on_air=True)
    cues.wait("/chgk/event/on_air", [game, "Эфир для журнала"])
    # the sponsor's sector: spun, its minute runs out (the server's clock), the viewers win it
    spun = srv.play(game, "spin", landed=13)
    assert spun["round"]["sector"] == 13
    reveal = spun["round"]["reveal_at"]  # the top's arrow stops: the question is on air from then
    wait_for(lambda: srv.api("GET", "/api/time")["server_now"] >= reveal, what="the top to stop")
    srv.play(game, "start_timer")
    wait_for(lambda: srv.state(game)["round"]["phase"] == "answer", what="the minute's time-up")
    closed = srv.play(game, "judge", correct=False)
    # a spin that is undone: sent, cued, then taken back
    srv.play(game, "spin", landed=2)
    srv.api("POST", f"/api/games/{game}/undo")
    cues.wait("/chgk/event/undo", ["spin"])
    # a lower-third that goes out by itself; the scoreboard hidden and given back to the game
    lt = srv.api("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                           "data": {"title": "Анна Иванова", "duration_ms": 600}})
    shown_at = lt["graphics"]["lower-third"]["shown_at"]
    expires_at = lt["graphics"]["lower-third"]["expires_at"]
    wait_for(lambda: "lower-third" not in srv.api("GET", "/api/graphics")["graphics"], what="the strap's auto-out")
    srv.api("POST", "/api/graphics", {"action": "hide", "graphic": "scoreboard"})
    srv.api("POST", "/api/graphics", {"action": "clear", "graphic": "scoreboard"})
    # a rundown's item taken and out
    rd = srv.api("POST", "/api/rundowns", {"name": "Шоу"})["id"]
    r = srv.call("POST", f"/api/rundowns/{rd}/items", {"layer": "straps", "out": "manual", "label": "Ведущий",
                                                        "graphic": "lower-third", "data": {"title": "Борис"}})
    assert r.status_code == 201, r.text
    item = r.json()["id"]
    taken = srv.api("POST", f"/api/rundowns/{rd}/actions", {"action": "take", "item": item})
    taken_at = taken["program"]["straps"]["shown_at"]
    srv.api("POST", f"/api/rundowns/{rd}/actions", {"action": "out", "item": item})
    cues.wait("/chgk/event/rundown_out", ["Ведущий", "straps", item])

    log = srv.api("GET", f"/api/games/{game}/as-run?timecode=10:00:00:00&fps=25")
    rows = log["rows"]
    assert [r["at"] for r in rows] == sorted(r["at"] for r in rows)
    assert rows[0]["type"] == "game_on_air" and rows[0]["timecode"] == "10:00:00:00"
    for r in rows:  # the timecode is the wall time's distance from the first row, in frames
        hh, mm, ss, ff = map(int, r["timecode"].split(":"))
        assert ((hh - 10) * 3600 + mm * 60 + ss) * 25 + ff == round((r["at"] - rows[0]["at"]) * 25 / 1000)

    # graphics in and out at the instants the server answered with
    def one(kind: str, graphic: str, **more: object) -> dict:
        found = [r for r in rows if r["type"] == kind and r["graphic"] == graphic
                 and all(r.get(k) == v for k, v in more.items())]
        assert len(found) == 1, (kind, graphic, more, rows)
        return found[0]

    assert one("graphic_in", "lower-third", label="Анна Иванова")["at"] == shown_at
    assert expires_at <= one("graphic_out", "lower-third", layer=None, source="clock")["at"] < expires_at + 5000
    assert one("graphic_out", "scoreboard")["source"] == "http"
    assert one("graphic_in", "scoreboard")["source"] == "http"
    assert one("graphic_in", "lower-third", layer="straps", label="Ведущий")["at"] == taken_at

    # every cue the receiver got, in its order (the undone spin's own cue is listed as undone)
    got = [(c.address, c.args) for c in cues.seen("/chgk/event/") if c.address != "/chgk/event/rundown_state"]
    undone_spin = max(i for i, (a, args) in enumerate(got) if a == "/chgk/event/spin")
    assert got[undone_spin][1][0] == 2
    del got[undone_spin]
    assert [generic(r) for r in rows if r["type"] == "cue"] == got
    assert [(r["cue"], r["source"]) for r in rows if r["type"] == "undone"] == [("spin", "http")]

    # the sponsor's question: on air from the top's stop to the round's close, counted apart
    q = log["questions"][0]
    assert (q["sector"], q["author"], q["city"], q["sponsor"]) == (13, "ООО «Спонсор»", "Москва", True)
    assert q["in_at"] == spun["round"]["reveal_at"]
    assert q["out_at"] == srv.api("GET", f"/api/games/{game}/log")["events"][-1]["at"]
    assert log["sponsor"]["airtime_ms"] == q["out_at"] - q["in_at"] > 0
    assert [r["type"] for r in rows if r.get("sector") == 13] == ["question_in", "question_out"]
    assert closed["score"] == {"experts": 0, "viewers": 1}

    # CSV: the same rows, Excel-friendly (BOM, CRLF; `;` with excel=1)
    text = srv.call("GET", f"/api/games/{game}/as-run?format=csv&excel=1&timecode=10:00:00:00").content.decode("utf-8")
    assert text.startswith("\ufeff") and "\r\n" in text
    table = list(csv.reader(io.StringIO(text[1:]), delimiter=";"))
    assert table[0][:4] == ["timecode", "wall", "at", "type"] and len(table) == len(rows) + 1
    assert [t[3] for t in table[1:]] == [r["type"] for r in rows]
    assert any(t[11] == "ООО «Спонсор»" and t[13] == "1" for t in table[1:])

    # the rundown's show: its item in and out, with its cues
    show = srv.api("GET", f"/api/rundowns/{rd}/as-run")
    assert [(r["type"], r.get("graphic"), r.get("label")) for r in show["rows"] if r["type"] != "cue"] == [
        ("graphic_in", "lower-third", "Ведущий"), ("graphic_out", "lower-third", "Ведущий")]
    assert [r["cue"] for r in show["rows"] if r["type"] == "cue"] == [
        "graphic_shown", "rundown_take", "graphic_hidden", "rundown_out"]


def test_bad_requests_are_refused_in_words(srv: Server) -> None:
    game = srv.create(tv_spec())
    for path, status, code in [("/api/games/g999/as-run", 404, "unknown_game"),
                               (f"/api/games/{game}/as-run?fps=33", 400, "bad_field"),
                               (f"/api/games/{game}/as-run?timecode=10:00:00:30", 400, "bad_field"),
                               (f"/api/games/{game}/as-run?format=xml", 400, "bad_field"),
                               ("/api/rundowns/r999/as-run", 404, "unknown_rundown")]:
        r = srv.call("GET", path)
        assert r.status_code == status and r.json()["error"]["code"] == code, (path, r.text)
    import requests
    assert requests.get(srv.url + f"/api/games/{game}/as-run", timeout=10).status_code == 401
    assert srv.call("GET", f"/api/games/{game}/as-run").json()["rows"] == []
