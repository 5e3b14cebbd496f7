"""Kill the server at any moment: it restarts into exactly the same game.

One server and one SIGKILL for the module: before the kill it holds a game in the middle of a
long minute, a game whose short minute runs out while the server is down, a graphic on air and
the demo game on air; each test checks its part of what the restarted server says."""
from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.support import Server, wait_for


@dataclass
class Restarted:
    srv: Server
    mid_minute: str        # a game killed in the middle of a 600 s minute
    before: dict           # its state and log just before the kill
    log: list
    short_minute: str      # a game whose 1.5 s minute ran out while the server was down
    on_air: str            # the on-air game before the kill


@pytest.fixture(scope="module")
def restarted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Restarted]:
    srv = Server(tmp_path_factory.mktemp("restart") / "data", mode="eventlet").start()
    try:
        on_air = srv.call("GET", "/api/on-air").json()["game"]
        srv.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third", "data": {"title": "Анна"}})
        # a minute long enough that no restart on a loaded machine outlasts it
        game = srv.create({"rules": "tv", "timers": {"minute": 600_000},
                           "experts": {"name": "Команда", "players": ["А", "Б", "В"], "captain": "А"}})
        srv.command(game, type="spin", landed=5)
        srv.command(game, type="start_timer")
        short = srv.create({"rules": "tv", "timers": {"minute": 1_500}})
        srv.command(short, type="spin", landed=2)
        ends_at = srv.play(short, "start_timer")["timer"]["ends_at"]
        before = srv.state(game)
        log = srv.call("GET", f"/api/games/{game}/log").json()["events"]
        assert before["timer"]["running"] and before["round"]["phase"] == "discussion"
        srv.kill()
        # the short minute runs out while nothing is running (server time is this machine's clock)
        wait_for(lambda: time.time() * 1000 > ends_at + 100, 10, "the short minute to run out")
        srv.start()
        yield Restarted(srv, game, before, log, short, on_air)
    finally:
        srv.stop()


def test_sigkill_mid_minute_restarts_into_the_same_state(restarted: Restarted):
    srv, game, before = restarted.srv, restarted.mid_minute, dict(restarted.before)
    after = srv.state(game)
    log_after = srv.call("GET", f"/api/games/{game}/log").json()["events"]
    assert log_after == restarted.log
    # Identical but for the moment it is read at: the timer keeps its end in server time.
    before["timer"], after["timer"] = dict(before["timer"]), dict(after["timer"])
    for key in ("server_now",):
        before.pop(key), after.pop(key)
    for t in (before["timer"], after["timer"]):
        t.pop("server_now"), t.pop("remaining_ms")
    assert after == before  # the same ends_at in server time: the minute went on while it was down
    assert after["timer"]["running"] and after["timer"]["ends_at"] > time.time() * 1000


def test_time_up_while_the_server_was_down_is_recorded_on_restart(restarted: Restarted):
    srv, game = restarted.srv, restarted.short_minute
    wait_for(lambda: srv.state(game)["round"]["phase"] == "answer", 30, "the time-up to be recorded")
    assert srv.state(game)["rev"] == 3


def test_graphics_and_on_air_survive_a_restart(restarted: Restarted):
    srv = restarted.srv
    assert restarted.on_air == "g1"  # --demo put the demo game on air
    assert srv.call("GET", "/api/on-air").json()["game"] == restarted.on_air
    assert srv.call("GET", "/api/graphics").json()["graphics"]["lower-third"]["data"]["title"] == "Анна"
    games = {g["id"] for g in srv.call("GET", "/api/games").json()["games"]}
    # --demo must not add a second demo game: the demo and the two games made above, no more
    assert games == {"g1", restarted.mid_minute, restarted.short_minute}, games
