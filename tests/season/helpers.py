"""Playing real games through the commands API, and small API helpers for the league tests."""
from __future__ import annotations

from typing import Any

from tests.support import Server

FAST = {"minute": 60_000}


def ok(srv: Server, method: str, path: str, body: Any = None, status: int = 200) -> Any:
    r = srv.call(method, path, body)
    assert r.status_code == status, f"{method} {path} -> {r.status_code} {r.text}"
    return r.json()


def refused(srv: Server, method: str, path: str, body: Any, status: int, code: str | None = None) -> dict:
    r = srv.call(method, path, body)
    assert r.status_code == status, f"{method} {path} -> {r.status_code} {r.text}"
    err = r.json()["error"]
    assert err["message"]
    if code:
        assert err["code"] == code, err
    return err


def approved_members(srv: Server, names: list[str], date: str = "2026-01-10") -> dict[str, str]:
    """Adult members, approved on `date`: name -> member id."""
    ids = {}
    for name in names:
        mid = ok(srv, "POST", "/api/members", {"name": name, "adult": True}, 201)["id"]
        ok(srv, "POST", f"/api/members/{mid}/status", {"status": "approved", "date": date, "reason": "ок"})
        ids[name] = mid
    return ids


def command(srv: Server, game: str, **body: Any) -> dict:
    return ok(srv, "POST", f"/api/games/{game}/commands", body)["state"]


def club_game(srv: Server, season: str, holding: str, teams: list[dict], target: int = 3,
              stage: str = "qualifying", secret: str | None = None) -> str:
    """A club game of `holding` played by the holding's formed teams (as GET .../teams gives them);
    with `secret`, every envelope holds a question whose text starts with it."""
    spec = {"rules": "club", "title": f"{holding}", "target": target, "season": season, "stage": stage,
            "game_day": holding, "timers": FAST,
            "teams": [{"id": t["id"], "name": t["name"], "players": t["players"]} for t in teams]}
    if secret:
        spec["sectors"] = [{"number": n, "kind": "regular", "questions": [
            {"text": f"{secret} {n}", "answer": f"Ответ {n}"}]} for n in range(1, 14)]
    return srv.create(spec)


def play_club(srv: Server, game: str, first: str, rounds: list[tuple[bool, list[str], str | None]],
              best: str | None = None) -> dict:
    """rounds: (Central Table correct?, club tables that wrote a correct answer, the team to seat
    next when the Central Table team lost its round)."""
    command(srv, game, type="seat_team", team=first)
    state: dict = {}
    for correct, club_correct, next_team in rounds:
        command(srv, game, type="spin")
        command(srv, game, type="start_timer")
        command(srv, game, type="judge", correct=correct)
        state = command(srv, game, type="club_answers", correct=club_correct)
        if not correct and state["status"] != "finished":
            state = command(srv, game, type="seat_team", team=next_team)
    if best:
        state = command(srv, game, type="best_player", player=best)
    assert state["status"] == "finished", state["score"]
    return state


def tv_game(srv: Server, team: str, players: list[str] | None = None, target: int = 2, **meta: Any) -> str:
    return srv.create({"rules": "tv", "title": team, "target": target, "timers": FAST,
                       "experts": {"name": team, "players": players or [f"{team} {i}" for i in range(1, 7)]},
                       **meta})


def play_tv(srv: Server, game: str, verdicts: list[bool]) -> dict:
    state: dict = {}
    for correct in verdicts:
        command(srv, game, type="spin")
        command(srv, game, type="start_timer")
        state = command(srv, game, type="judge", correct=correct)
    assert state["status"] == "finished", state["score"]
    return state


def count_actions(srv: Server, path: str) -> int:
    return len(ok(srv, "GET", path)["actions"])
