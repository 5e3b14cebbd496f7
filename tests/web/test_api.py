"""The HTTP API of API.md against a real server process."""
from __future__ import annotations

import json
import time

import pytest
import requests

from tests.support import Server

QUESTION = {"text": "Секретный вопрос №{n}", "answer": "Секретный ответ №{n}",
            "author": {"name": "Иван Петров", "city": "Харьков"}, "prize": {"amount": 1000, "currency": "UAH"}}


def spec(**extra):
    sectors = [{"number": n, "kind": "regular", "questions": [
        {k: (v.format(n=n) if isinstance(v, str) else v) for k, v in QUESTION.items()}]} for n in range(1, 13)]
    return {"rules": "tv", "title": "Тест", "experts": {"name": "Команда", "players": ["А", "Б", "В", "Г", "Д", "Е"],
                                                       "captain": "А"},
            "sectors": sectors, "timers": {"minute": 60_000}, **extra}


def unchanged(srv: Server, game: str, rev: int, log: int) -> None:
    assert srv.state(game)["rev"] == rev
    assert srv.log_length(game) == log


@pytest.fixture
def game(shared_server: Server) -> str:
    return shared_server.create(spec())


# auth ---------------------------------------------------------------------------------------------

def test_operator_endpoints_need_credentials(shared_server: Server, game: str):
    for method, path in [("GET", "/api/games"), ("POST", "/api/games"), ("GET", f"/api/games/{game}"),
                         ("POST", f"/api/games/{game}/commands"), ("POST", f"/api/games/{game}/undo"),
                         ("PUT", "/api/on-air"), ("POST", "/api/graphics"), ("GET", f"/api/games/{game}/log")]:
        r = requests.request(method, shared_server.url + path, json={"type": "spin"}, timeout=5)
        assert r.status_code == 401, (method, path)
        assert r.json()["error"]["code"] == "unauthorized"
        wrong = requests.request(method, shared_server.url + path, json={"type": "spin"}, timeout=5,
                                 headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
    assert shared_server.state(game)["rev"] == 0


def test_public_view_needs_no_credentials(shared_server: Server, game: str):
    r = requests.get(f"{shared_server.url}/api/games/{game}/public", timeout=5)
    assert r.status_code == 200 and r.json()["id"] == game


def test_index_and_login_page(shared_server: Server):
    index = requests.get(shared_server.url + "/", timeout=5)
    assert index.status_code == 200 and "/overlays/scoreboard" in index.text and "/control/" in index.text
    panel = requests.get(shared_server.url + "/control/", timeout=5)
    assert panel.status_code == 200 and 'type="password"' in panel.text


def test_login_with_password_gives_httponly_samesite_cookie(shared_server: Server):
    s = requests.Session()
    page = s.get(shared_server.url + "/control/", timeout=5).text
    csrf = page.split('name="csrf" value="')[1].split('"')[0]
    bad = s.post(shared_server.url + "/control/login", data={"password": "wrong", "csrf": csrf}, timeout=5)
    assert bad.status_code == 401
    ok = s.post(shared_server.url + "/control/login", data={"password": "test-password-1", "csrf": csrf},
                timeout=5, allow_redirects=False)
    assert ok.status_code == 302
    cookie = ok.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert s.get(shared_server.url + "/api/games", timeout=5).status_code == 200
    # A change made with the cookie must carry the page's CSRF token (another site cannot read it).
    forged = s.post(shared_server.url + "/api/games", json={"rules": "tv"}, timeout=5)
    assert forged.status_code == 403 and forged.json()["error"]["code"] == "csrf"
    panel = s.get(shared_server.url + "/control/", timeout=5).text  # login issued a fresh token
    csrf = panel.split('name="csrf" value="')[1].split('"')[0]
    made = s.post(shared_server.url + "/api/games", json={"rules": "tv"}, timeout=5, headers={"X-CSRF-Token": csrf})
    assert made.status_code == 201


# creating games -----------------------------------------------------------------------------------

def test_create_returns_201_with_id_and_state(shared_server: Server):
    r = shared_server.call("POST", "/api/games", spec())
    assert r.status_code == 201
    body = r.json()
    assert body["state"]["id"] == body["id"] and body["state"]["rev"] == 0
    assert body["state"]["status"] == "playing" and len(body["state"]["sectors"]) == 13
    assert body["state"]["sectors"][12]["kind"] == "sponsor"
    assert any(g["id"] == body["id"] for g in shared_server.call("GET", "/api/games").json()["games"])


def test_minimal_spec_is_13_paper_envelopes(shared_server: Server):
    r = shared_server.call("POST", "/api/games", {"rules": "tv"})
    assert r.status_code == 201
    assert [s["kind"] for s in r.json()["state"]["sectors"]] == ["regular"] * 12 + ["sponsor"]


@pytest.mark.parametrize("bad, words", [
    ({"rules": "chess"}, "rules"),
    ({"rules": "tv", "sectors": [{"number": 5, "kind": "blitz", "questions": [{"text": "a", "answer": "b"}]}]},
     "blitz envelope holds 3"),
    ({"rules": "tv", "sectors": [{"number": 14}]}, "number"),
    ({"rules": "tv", "target": "six"}, "target"),
    ({"rules": "tv", "sectors": [{"number": 1, "kind": "bonus"}]}, "kind"),
    ({"rules": "tv", "colour": "red"}, "colour"),
    ({"rules": "club", "teams": [{"id": "a", "name": "A"}], "game_day": "d"}, "teams"),
])
def test_bad_spec_is_400_and_creates_nothing(shared_server: Server, bad, words):
    before = len(shared_server.call("GET", "/api/games").json()["games"])
    r = shared_server.call("POST", "/api/games", bad)
    assert r.status_code == 400
    assert words in r.json()["error"]["message"]
    assert len(shared_server.call("GET", "/api/games").json()["games"]) == before


# refusals change nothing ---------------------------------------------------------------------------

def test_malformed_json_is_400(shared_server: Server, game: str):
    r = shared_server.call("POST", f"/api/games/{game}/commands", data=b'{"type": "spin",',
                           headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json"
    unchanged(shared_server, game, 0, 0)


@pytest.mark.parametrize("body, code", [
    ({"type": "dance"}, "unknown_command"),
    ({}, "unknown_command"),
    ([1, 2], "bad_command"),
    ({"type": "spin", "landed": "5"}, "bad_field"),
    ({"type": "spin", "landed": True}, "bad_field"),
    ({"type": "spin", "landed": 0}, "bad_field"),
    ({"type": "spin", "landed": 14}, "bad_field"),
    ({"type": "judge"}, "bad_field"),
    ({"type": "judge", "correct": "yes"}, "bad_field"),
    ({"type": "spin", "sector": 3}, "bad_field"),
    ({"type": "spin", "expected_rev": "zero"}, "bad_field"),
])
def test_bad_commands_are_400_and_change_nothing(shared_server: Server, game: str, body, code):
    r = shared_server.call("POST", f"/api/games/{game}/commands", body)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == code and r.json()["error"]["message"]
    unchanged(shared_server, game, 0, 0)


def test_rule_refusal_is_422_naming_the_rule(shared_server: Server, game: str):
    r = shared_server.command(game, type="judge", correct=True)
    assert r.status_code == 422 and r.json()["error"]["code"] == "no_round"
    r = shared_server.command(game, type="club_help")
    assert r.status_code == 422
    unchanged(shared_server, game, 0, 0)


def test_stale_expected_rev_is_409(shared_server: Server, game: str):
    assert shared_server.command(game, type="spin", landed=1, expected_rev=0).status_code == 200
    r = shared_server.command(game, type="start_timer", expected_rev=0)
    assert r.status_code == 409 and r.json()["error"]["code"] == "stale_rev"
    unchanged(shared_server, game, 1, 1)
    assert shared_server.command(game, type="start_timer", expected_rev=1).status_code == 200


def test_a_time_up_is_not_a_conflict_but_a_command_still_is(shared_server: Server):
    """The clock's own change does not make a press stale (a verdict at the gong); a command by
    someone else between the look and the press still does — and so does one after a time-up."""
    game = shared_server.create(spec(timers={"minute": 1000}))
    shared_server.play(game, "spin", landed=1)
    shared_server.play(game, "start_timer")                      # rev 2
    deadline = time.monotonic() + 15
    while shared_server.state(game)["rev"] < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert shared_server.state(game)["rev"] == 3                 # the clock's time-up
    r = shared_server.command(game, type="judge", correct=True, expected_rev=2)
    assert r.status_code == 200, r.text
    assert r.json()["state"]["rev"] == 4 and r.json()["state"]["score"]["experts"] == 1
    # rev 4 was a command: a press based on rev 2 or 3 is stale now
    log = shared_server.log_length(game)
    for stale in (2, 3):
        r = shared_server.command(game, type="spin", landed=2, expected_rev=stale)
        assert r.status_code == 409 and r.json()["error"]["code"] == "stale_rev"
    unchanged(shared_server, game, 4, log)


def test_unknown_game_is_404(shared_server: Server):
    for method, path in [("GET", "/api/games/nope"), ("GET", "/api/games/nope/public"),
                         ("POST", "/api/games/nope/commands"), ("POST", "/api/games/nope/undo")]:
        r = shared_server.call(method, path, {"type": "spin"})
        assert r.status_code == 404 and r.json()["error"]["code"] == "unknown_game"
    assert shared_server.call("PUT", "/api/on-air", {"game": "nope"}).status_code == 404


def test_oversized_body_is_413(shared_server: Server, game: str):
    big = json.dumps({"type": "spin", "pad": "x" * (2 << 20)})
    try:
        r = shared_server.call("POST", f"/api/games/{game}/commands", data=big,
                               headers={"Content-Type": "application/json"})
        assert r.status_code == 413
    except requests.ConnectionError:
        pass  # API.md: the server may also cut the connection
    unchanged(shared_server, game, 0, 0)
    assert requests.get(shared_server.url + "/api/time", timeout=5).ok


def test_undo_with_nothing_to_undo_is_422(shared_server: Server, game: str):
    r = shared_server.call("POST", f"/api/games/{game}/undo")
    assert r.status_code == 422 and r.json()["error"]["code"] == "nothing_to_undo"
    unchanged(shared_server, game, 0, 0)


# playing ------------------------------------------------------------------------------------------

def test_a_whole_game_through_http(shared_server: Server, game: str):
    rev = 0
    for n, correct in zip(range(1, 12), [True, False, True, True, False, True, True, True]):
        for body in ({"type": "spin", "landed": n}, {"type": "start_timer"}, {"type": "judge", "correct": correct}):
            r = shared_server.command(game, **body, expected_rev=rev)
            assert r.status_code == 200, r.text
            rev += 1
            assert r.json()["state"]["rev"] == rev
        if r.json()["state"]["status"] == "finished":
            break
    state = shared_server.state(game)
    assert state["score"] == {"experts": 6, "viewers": 2} and state["winner"] == "experts"
    assert [p["sector"] for p in state["prizes"]] == [2, 5]
    r = shared_server.command(game, type="spin")
    assert r.status_code == 422 and r.json()["error"]["code"] == "game_over"
    undone = shared_server.call("POST", f"/api/games/{game}/undo").json()["state"]
    assert undone["status"] == "playing" and undone["score"] == {"experts": 5, "viewers": 2}
    assert undone["rev"] == rev + 1


def test_undo_reverts_the_last_command_and_its_time_up(shared_server: Server):
    game = shared_server.create(spec(timers={"minute": 1000}))
    shared_server.command(game, type="spin", landed=3)
    shared_server.command(game, type="start_timer")
    deadline = time.monotonic() + 5
    while shared_server.state(game)["round"]["phase"] != "answer":
        assert time.monotonic() < deadline, "the server did not record time-up"
        time.sleep(0.05)
    events = shared_server.call("GET", f"/api/games/{game}/log").json()["events"]
    assert [e["event"]["type"] for e in events] == ["spun", "timer_started", "time_up"]
    assert events[-1]["auto"] is True
    state = shared_server.call("POST", f"/api/games/{game}/undo").json()["state"]
    assert state["round"]["phase"] == "reading" and state["timer"] is None
    assert shared_server.log_length(game) == 1


def test_public_view_never_holds_unplayed_questions_or_unjudged_answers(shared_server: Server, game: str):
    def public_text() -> str:
        return requests.get(f"{shared_server.url}/api/games/{game}/public", timeout=5).text

    assert "Секретный" not in public_text()
    shared_server.command(game, type="spin", landed=4)
    text = public_text()
    assert "Секретный вопрос №4" in text
    assert "Секретный ответ" not in text
    assert not any(f"№{n}" in text for n in range(1, 13) if n != 4)
    shared_server.command(game, type="start_timer")
    assert "Секретный ответ" not in public_text()
    shared_server.command(game, type="judge", correct=False)
    text = public_text()
    assert "Секретный ответ №4" in text and "Секретный вопрос №5" not in text
    operator = shared_server.state(game)
    assert operator["sectors"][6]["questions"][0]["text"] == "Секретный вопрос №7"


def test_on_air_game_is_what_overlays_follow(shared_server: Server, game: str):
    r = shared_server.call("PUT", "/api/on-air", {"game": game})
    assert r.status_code == 200 and r.json()["game"] == game
    assert requests.get(shared_server.url + "/api/on-air", timeout=5).json()["game"] == game
    assert shared_server.call("PUT", "/api/on-air", {"id": game}).status_code == 400


def test_graphics_show_list_hide(shared_server: Server):
    body = {"action": "show", "graphic": "lower-third", "data": {"title": "Анна Иванова", "subtitle": "капитан"}}
    r = shared_server.call("POST", "/api/graphics", body)
    assert r.status_code == 200 and r.json()["graphics"]["lower-third"]["data"]["title"] == "Анна Иванова"
    listed = shared_server.call("GET", "/api/graphics").json()
    assert "lower-third" in listed["graphics"]
    seq = listed["seq"]
    for bad in ({"action": "wave", "graphic": "lower-third"}, {"action": "show", "graphic": "fireworks"},
                {"action": "show", "graphic": "lower-third", "data": {"duration_ms": -5}},
                {"action": "show", "graphic": "lower-third", "data": []}):
        r = shared_server.call("POST", "/api/graphics", bad)
        assert r.status_code == 400 and r.json()["error"]["message"]
    assert shared_server.call("GET", "/api/graphics").json()["seq"] == seq
    r = shared_server.call("POST", "/api/graphics", {"action": "hide", "graphic": "lower-third"})
    assert "lower-third" not in r.json()["graphics"] and "lower-third" in r.json()["hidden"]
    r = shared_server.call("POST", "/api/graphics", {"action": "clear", "graphic": "lower-third"})
    assert "lower-third" not in r.json()["graphics"] and "lower-third" not in r.json()["hidden"]


def test_graphics_auto_out_after_duration(shared_server: Server):
    shared_server.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                                 "data": {"title": "Ведущий", "duration_ms": 600}})
    deadline = time.monotonic() + 5
    while "lower-third" in shared_server.call("GET", "/api/graphics").json()["graphics"]:
        assert time.monotonic() < deadline, "the lower-third did not go out by itself"
        time.sleep(0.05)


def test_login_returns_to_an_admin_page_but_never_elsewhere(shared_server: Server):
    for wanted, expected in [("/control/admin/", "/control/admin/"), ("//evil.example/x", "/control/"),
                             ("https://evil.example/", "/control/"), ("/control/admin/../../x", "/control/")]:
        s = requests.Session()
        page = s.get(shared_server.url + "/control/", timeout=5).text
        csrf = page.split('name="csrf" value="')[1].split('"')[0]
        r = s.post(shared_server.url + "/control/login", timeout=5, allow_redirects=False,
                   data={"password": "test-password-1", "csrf": csrf, "next": wanted})
        assert r.status_code == 302 and r.headers["Location"] in (expected, shared_server.url + expected), wanted


def test_panel_pages_refuse_framing_and_overlays_allow_it(shared_server: Server):
    for path in ("/control/", "/control/admin/"):
        r = requests.get(shared_server.url + path, timeout=5)
        assert r.headers.get("X-Frame-Options") == "DENY", path
        assert "frame-ancestors 'none'" in r.headers.get("Content-Security-Policy", "")
    overlay = requests.get(shared_server.url + "/overlays/scoreboard", timeout=5)
    assert overlay.status_code == 200 and "X-Frame-Options" not in overlay.headers
