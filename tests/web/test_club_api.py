"""The club game through HTTP: seats, club tables, rating, and a game day's memory."""
from __future__ import annotations

from tests.support import Server

TEAMS = [{"id": f"t{i}", "name": f"Команда {i}", "players": [f"Игрок {i}{c}" for c in "абвг"]} for i in range(1, 5)]


def club(srv: Server, day: str = "2026-03-01-sun") -> str:
    return srv.create({"rules": "club", "game_day": day, "teams": TEAMS, "timers": {"minute": 60_000}})


def ok(srv: Server, game: str, **body) -> dict:
    r = srv.command(game, **body)
    assert r.status_code == 200, r.text
    return r.json()["state"]


def test_a_lost_round_and_the_next_seat(shared_server: Server):
    g = club(shared_server)
    r = shared_server.command(g, type="spin")
    assert r.status_code == 422 and r.json()["error"]["code"] == "central_table_empty"
    state = ok(shared_server, g, type="seat_team", team="t1")
    assert state["central"]["team"] == "t1" and state["central"]["seated"] == ["t1"]
    ok(shared_server, g, type="spin", landed=1)
    ok(shared_server, g, type="start_timer")
    ok(shared_server, g, type="judge", correct=False)
    r = shared_server.command(g, type="seat_team")
    assert r.status_code == 422 and r.json()["error"]["code"] == "club_answers_missing"
    state = ok(shared_server, g, type="club_answers", correct=["t3"])
    assert state["central"]["candidates"] == ["t3"] and state["teams"][0]["lost_round"]
    r = shared_server.command(g, type="seat_team", team="t2")
    assert r.status_code == 422 and "Команда 2" in r.json()["error"]["message"]
    state = ok(shared_server, g, type="seat_team")
    assert state["central"]["team"] == "t3"
    assert {t["id"]: t["gain"] for t in state["teams"]} == {"t1": 0, "t2": 0, "t3": 1, "t4": 0}


def test_tv_options_refused_with_a_clear_reason(shared_server: Server):
    g = club(shared_server, "2026-03-04-wed")
    ok(shared_server, g, type="seat_team", team="t2")
    ok(shared_server, g, type="spin", landed=2)
    for kind in ("early_answer", "extra_minute", "club_help", "request_decisive_round"):
        r = shared_server.command(g, type=kind)
        assert r.status_code == 422 and r.json()["error"]["code"] == "tv_only"
        assert "TV rules" in r.json()["error"]["message"]


def test_lost_rounds_last_the_whole_game_day(shared_server: Server):
    day = "2026-03-08-sun"
    first = club(shared_server, day)
    ok(shared_server, first, type="seat_team", team="t1")
    ok(shared_server, first, type="spin", landed=1)
    ok(shared_server, first, type="start_timer")
    ok(shared_server, first, type="judge", correct=False)
    ok(shared_server, first, type="club_answers", correct=[])
    second = club(shared_server, day)
    state = shared_server.state(second)
    assert state["central"]["candidates"] == ["t2", "t3", "t4"]
    assert [t["lost_round"] for t in state["teams"]] == [True, False, False, False]
    other_day = shared_server.state(club(shared_server, "2026-03-11-wed"))
    assert other_day["central"]["candidates"] == ["t1", "t2", "t3", "t4"]


def test_public_club_state_keeps_questions_secret(shared_server: Server):
    spec = {"rules": "club", "game_day": "d9", "teams": TEAMS,
            "sectors": [{"number": n, "questions": [{"text": f"Тайна {n}", "answer": f"Отгадка {n}"}]}
                        for n in range(1, 14)]}
    g = shared_server.create(spec)
    ok(shared_server, g, type="seat_team", team="t1")
    ok(shared_server, g, type="spin", landed=5)
    public = shared_server.call("GET", f"/api/games/{g}/public").text
    assert "Тайна 5" in public and "Отгадка" not in public and "Тайна 6" not in public
