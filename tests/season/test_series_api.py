"""The «Star Wars» series against a real server: tv games played through the commands API,
duels decided by margin and by finish order, the final series, overrides with reasons."""
from __future__ import annotations

import pytest

from tests.support import Server

from .helpers import command, count_actions, ok, play_tv, refused, tv_game

STARS = ["Звёзды эстрады", "Звёзды спорта", "Политики", "Актёры"]


@pytest.fixture(scope="module")
def duels(srv: Server) -> dict:
    games = {team: tv_game(srv, team) for team in STARS}
    sid = ok(srv, "POST", "/api/series", {"name": "Звёздные войны 2026",
                                           "duels": [[games[STARS[0]], games[STARS[1]]],
                                                     [games[STARS[2]], games[STARS[3]]]]}, 201)["id"]
    return {"id": sid, "games": games}


def test_nothing_advances_before_the_games_are_played(srv: Server, duels: dict):
    s = ok(srv, "GET", f"/api/series/{duels['id']}")
    assert (s["advancing"], s["winner"]) == ([], None)
    assert [d["basis"] for d in s["duels"]] == ["pending", "pending"]
    assert [g["team"] for g in s["duels"][0]["games"]] == STARS[:2]


def test_duel_tie_goes_to_the_game_that_finished_later(srv: Server, duels: dict):
    g = duels["games"]
    # the second team of the pair plays first; the first team's game finishes later
    play_tv(srv, g[STARS[1]], [False, True, True])                  # 2:1
    first = g[STARS[0]]
    command(srv, first, type="spin")
    command(srv, first, type="start_timer")
    command(srv, first, type="judge", correct=True)
    command(srv, first, type="spin")
    command(srv, first, type="start_timer")
    command(srv, first, type="judge", correct=False)
    command(srv, first, type="spin")
    command(srv, first, type="start_timer")
    assert command(srv, first, type="judge", correct=True)["status"] == "finished"  # 2:1
    s = ok(srv, "GET", f"/api/series/{duels['id']}")
    d1 = s["duels"][0]
    assert (d1["winner"], d1["basis"]) == (STARS[0], "later_game")
    assert d1["games"][0]["played_at"] > d1["games"][1]["played_at"]

    # undo takes the finish back: the duel waits again; finishing again counts as later still
    ok(srv, "POST", f"/api/games/{first}/undo", {})
    assert ok(srv, "GET", f"/api/series/{duels['id']}")["duels"][0]["basis"] == "pending"
    command(srv, first, type="judge", correct=True)  # the minute still runs: the verdict again
    assert ok(srv, "GET", f"/api/series/{duels['id']}")["duels"][0]["winner"] == STARS[0]


def test_better_margin_advances(srv: Server, duels: dict):
    g = duels["games"]
    play_tv(srv, g[STARS[3]], [False, False])          # 0:2, played later but lost
    play_tv(srv, g[STARS[2]], [True, False, True])     # 2:1
    s = ok(srv, "GET", f"/api/series/{duels['id']}")
    assert (s["duels"][1]["winner"], s["duels"][1]["basis"]) == (STARS[2], "margin")
    assert s["advancing"] == [STARS[0], STARS[2]] and s["winner"] is None


def test_final_series_and_operator_override(srv: Server, duels: dict):
    path = f"/api/series/{duels['id']}"
    loser = tv_game(srv, STARS[1])
    refused(srv, "POST", path + "/final", {"games": [loser]}, 422, "not_advancing")
    a, c = tv_game(srv, STARS[0]), tv_game(srv, STARS[2])
    s = ok(srv, "POST", path + "/final", {"games": [a, c]})
    assert s["final"]["basis"] == "pending"
    refused(srv, "POST", path + "/final", {"games": [c, a]}, 400, "reason_required")
    play_tv(srv, a, [True, True])                      # 2:0
    play_tv(srv, c, [True, False, True])               # 2:1
    s = ok(srv, "GET", path)
    assert (s["winner"], s["final"]["basis"]) == (STARS[0], "margin")

    before = ok(srv, "GET", path)
    n = count_actions(srv, path + "/actions")
    refused(srv, "POST", path + "/overrides", {"scope": "final", "winner": STARS[2]}, 400, "reason_required")
    refused(srv, "POST", path + "/overrides", {"scope": "duel:7", "winner": STARS[2], "reason": "x"}, 400,
            "series.override_scope")
    refused(srv, "POST", path + "/overrides", {"scope": "final", "winner": STARS[3], "reason": "x"}, 400,
            "series.override_winner")
    refused(srv, "POST", path + "/overrides", {"scope": "duel:1", "winner": None, "reason": "x"}, 422, "no_override")
    assert ok(srv, "GET", path) == before and count_actions(srv, path + "/actions") == n

    s = ok(srv, "POST", path + "/overrides", {"scope": "final", "winner": STARS[2],
                                             "reason": "протест принят: вопрос снят"}, 201)
    assert (s["winner"], s["final"]["basis"], s["final"]["reason"]) == (STARS[2], "override", "протест принят: вопрос снят")
    s = ok(srv, "POST", path + "/overrides", {"scope": "final", "winner": None, "reason": "протест отозван"}, 201)
    assert (s["winner"], s["final"]["basis"]) == (STARS[0], "margin")
    assert [o["reason"] for o in s["overrides"]] == ["протест принят: вопрос снят", "протест отозван"]
    kinds = [a["kind"] for a in ok(srv, "GET", path + "/actions")["actions"]]
    assert kinds[:2] == ["series_override_withdrawn", "series_override"]


def test_final_tie_goes_to_the_later_game(srv: Server):
    games = [tv_game(srv, team) for team in ("Певцы", "Танцоры", "Поэты", "Художники")]
    sid = ok(srv, "POST", "/api/series", {"name": "Кубок", "duels": [games[:2], games[2:]]}, 201)["id"]
    for g, verdicts in zip(games, ([True, True], [False, False], [True, True], [False, False])):
        play_tv(srv, g, verdicts)
    finals = [tv_game(srv, "Поэты"), tv_game(srv, "Певцы")]
    ok(srv, "POST", f"/api/series/{sid}/final", {"games": finals})
    play_tv(srv, finals[1], [True, False, True])   # Певцы 2:1 first
    play_tv(srv, finals[0], [False, True, True])   # Поэты 2:1 later
    s = ok(srv, "GET", f"/api/series/{sid}")
    assert (s["advancing"], s["winner"], s["final"]["basis"]) == (["Певцы", "Поэты"], "Поэты", "later_game")
    public = ok(srv, "GET", f"/api/public/series/{sid}")
    assert public["winner"] == "Поэты" and "reason" not in str(public) and "played_at" not in str(public)


def test_bad_series_refused_and_nothing_created(srv: Server, duels: dict):
    listed = ok(srv, "GET", "/api/series")["series"]
    g = duels["games"]
    club = srv.create({"rules": "club", "game_day": "d", "teams": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]})
    twin = tv_game(srv, STARS[0])
    for body, status in [({"name": "X", "duels": [[g[STARS[0]]]]}, 400),
                         ({"name": "X", "duels": [[g[STARS[0]], g[STARS[1]], g[STARS[2]]]]}, 400),
                         ({"name": "X", "duels": []}, 400),
                         ({"name": "", "duels": [[g[STARS[0]], g[STARS[1]]]]}, 400),
                         ({"name": "X", "duels": [[g[STARS[0]], "g999"]]}, 400),
                         ({"name": "X", "duels": [[g[STARS[0]], club]]}, 422),
                         ({"name": "X", "duels": [[g[STARS[0]], twin]]}, 400),
                         ({"name": "X", "duels": [[g[STARS[0]], g[STARS[1]]], [g[STARS[0]], g[STARS[2]]]]}, 400),
                         ({"name": "X", "duels": [[g[STARS[0]], g[STARS[1]]]], "extra": 1}, 400)]:
        refused(srv, "POST", "/api/series", body, status)
    assert ok(srv, "GET", "/api/series")["series"] == listed
    refused(srv, "GET", "/api/series/w99", None, 404, "unknown_series")


def test_finish_order_survives_a_restart(srv: Server, duels: dict):
    s = ok(srv, "GET", f"/api/series/{duels['id']}")
    srv.stop()
    again = Server(srv.data, demo=False, port=srv.port).start()
    try:
        assert ok(again, "GET", f"/api/series/{duels['id']}") == s
    finally:
        again.stop()
