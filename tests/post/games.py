"""Short recorded games for the render's tests and bench: a real server plays them through its
HTTP API, so the journal holds exactly what a live game would."""
from __future__ import annotations

from tests.support import QUICK_SPIN, Server, wait_for


def tv_spec(minute: int = 2500, target: int = 1, quick_spin: bool = False) -> dict:
    sectors = [{"number": n, "kind": "regular", "questions": [
        {"text": f"Вопрос {n}", "answer": f"Ответ {n}", "author": {"name": f"Автор {n}", "city": "Киев"}}]}
        for n in range(1, 14)]
    return {"rules": "tv", "title": "Запись для монтажа", "target": target,
            "experts": {"name": "Знатоки", "players": ["Анна", "Борис", "Вера"], "captain": "Анна"},
            "sectors": sectors, "timers": {"minute": minute}, **({"spin": QUICK_SPIN} if quick_spin else {})}


def club_spec(minute: int = 2500, quick_spin: bool = False) -> dict:
    spec = tv_spec(minute, quick_spin=quick_spin)
    spec.update(rules="club", title="Клубная игра", game_day="2026-12-06",
                teams=[{"id": "t1", "name": "Сова", "players": ["Анна", "Борис"]},
                       {"id": "t2", "name": "Ёж", "players": ["Вера", "Глеб"]}])
    spec.pop("experts")
    return spec


def server_time(srv: Server) -> int:
    return srv.api("GET", "/api/time")["server_now"]


def play_tv(srv: Server, quick_spin: bool = False) -> str:
    """Spin, the top's stop, the minute to its end (the server's clock), a correct answer: the
    experts win 1:0 and the game is over (target 1). `quick_spin`: the top turns in under a second
    (QUICK_SPIN) instead of five, for tests whose subject is not the turn: fewer frames to draw."""
    game = srv.create(tv_spec(quick_spin=quick_spin), on_air=True)
    spun = srv.play(game, "spin", landed=2)
    wait_for(lambda: server_time(srv) >= spun["round"]["reveal_at"], what="the top to stop")
    srv.play(game, "start_timer")
    wait_for(lambda: srv.state(game)["round"]["phase"] == "answer", what="the minute's time-up")
    end = srv.play(game, "judge", correct=True)
    assert end["status"] == "finished", end
    return game


def play_club(srv: Server, quick_spin: bool = False) -> str:
    game = srv.create(club_spec(quick_spin=quick_spin), on_air=True)
    srv.play(game, "seat_team", team="t1")
    spun = srv.play(game, "spin", landed=3)
    wait_for(lambda: server_time(srv) >= spun["round"]["reveal_at"], what="the top to stop")
    srv.play(game, "start_timer")
    wait_for(lambda: srv.state(game)["round"]["phase"] == "answer", what="the minute's time-up")
    srv.play(game, "club_answers", correct=["t2"])
    srv.play(game, "judge", correct=False)
    return game
