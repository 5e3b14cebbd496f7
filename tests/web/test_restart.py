"""Kill the server at any moment: it restarts into exactly the same game."""
from __future__ import annotations

import time

from tests.support import Server


def test_sigkill_mid_minute_restarts_into_the_same_state(tmp_path):
    srv = Server(tmp_path / "data", mode="eventlet").start()
    try:
        # a minute long enough that no restart on a loaded machine outlasts it
        game = srv.create({"rules": "tv", "timers": {"minute": 600_000},
                           "experts": {"name": "Команда", "players": ["А", "Б", "В"], "captain": "А"}})
        srv.command(game, type="spin", landed=5)
        srv.command(game, type="start_timer")
        before = srv.state(game)
        log = srv.call("GET", f"/api/games/{game}/log").json()["events"]
        assert before["timer"]["running"] and before["round"]["phase"] == "discussion"
        srv.kill()
        srv.start()
        after = srv.state(game)
        log_after = srv.call("GET", f"/api/games/{game}/log").json()["events"]
        assert log_after == log
        # Identical but for the moment it is read at: the timer keeps its end in server time.
        for key in ("server_now",):
            before.pop(key), after.pop(key)
        for t in (before["timer"], after["timer"]):
            t.pop("server_now"), t.pop("remaining_ms")
        assert after == before  # the same ends_at in server time: the minute went on while it was down
        assert after["timer"]["running"] and after["timer"]["ends_at"] > time.time() * 1000
    finally:
        srv.stop()


def test_time_up_while_the_server_was_down_is_recorded_on_restart(tmp_path):
    srv = Server(tmp_path / "data").start()
    try:
        game = srv.create({"rules": "tv", "timers": {"minute": 1_500}})
        srv.command(game, type="spin", landed=2)
        srv.command(game, type="start_timer")
        srv.kill()
        time.sleep(2)
        srv.start()
        deadline = time.monotonic() + 30
        while srv.state(game)["round"]["phase"] != "answer":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert srv.state(game)["rev"] == 3
    finally:
        srv.stop()


def test_graphics_and_on_air_survive_a_restart(tmp_path):
    srv = Server(tmp_path / "data").start()
    try:
        on_air = srv.call("GET", "/api/on-air").json()["game"]
        assert on_air == "g1"  # --demo put the demo game on air
        srv.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third", "data": {"title": "Анна"}})
        srv.kill()
        srv.start()
        assert srv.call("GET", "/api/on-air").json()["game"] == on_air
        assert srv.call("GET", "/api/graphics").json()["graphics"]["lower-third"]["data"]["title"] == "Анна"
        assert len(srv.call("GET", "/api/games").json()["games"]) == 1, "--demo must not add a second demo game"
    finally:
        srv.stop()
