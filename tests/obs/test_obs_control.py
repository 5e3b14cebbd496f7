"""OBS control against a fake obs-websocket 5 server over real loopback sockets, driven by a
real server process: scene switches on spin and verdict, the password challenge, and the game
never waiting for OBS — away, hung, wrong password or coming back."""
from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from overlay.obs.control import DEFAULT_SCENES, ConfigError, parse_config, wanted_scene
from overlay.obs.websocket import auth_response
from overlay.session import Change
from tests.obs.fake_obs import Blackhole, FakeObs, expected_auth
from tests.support import Server, free_port

TABLE, GAME, RESULT = DEFAULT_SCENES["spin"], DEFAULT_SCENES["verdict"], DEFAULT_SCENES["game_over"]
SPEC = {"rules": "tv", "title": "OBS", "target": 6, "timers": {"minute": 60_000},
        "sectors": [{"number": n, "kind": "regular", "questions": [{"text": f"Вопрос {n}", "answer": f"Ответ {n}"}]}
                    for n in range(1, 14)]}


def start_server(tmp_path: Path, *, url: str, password: str | None = None, toml: str = "") -> Server:
    data = tmp_path / "data"
    data.mkdir(parents=True, exist_ok=True)
    if toml:
        (data / "obs.toml").write_text(toml, encoding="utf-8")
    env = {"CHGK_OVERLAY_OBS_URL": url}
    if password is not None:
        env["CHGK_OVERLAY_OBS_PASSWORD"] = password
    return Server(data, demo=False, env=env).start()


def on_air_game(srv: Server, target: int = 6) -> str:
    game = srv.create({**SPEC, "target": target})
    assert srv.call("PUT", "/api/on-air", {"game": game}).status_code == 200
    return game


def timed(srv: Server, game: str, **command) -> float:
    t = time.monotonic()
    r = srv.command(game, **command)
    assert r.status_code == 200, r.text
    return time.monotonic() - t


def obs_status(srv: Server) -> dict:
    r = srv.call("GET", "/api/obs")
    assert r.status_code == 200, r.text
    return r.json()


def wait_status(srv: Server, predicate, timeout: float = 5.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        status = obs_status(srv)
        if predicate(status) or time.monotonic() > deadline:
            return status
        time.sleep(0.05)


@pytest.fixture
def fake() -> Iterator[FakeObs]:
    obs = FakeObs(free_port(), password="studio-secret").start()
    yield obs
    obs.stop()


def test_spin_goes_to_the_table_scene_and_a_verdict_back_to_the_game(tmp_path: Path, fake: FakeObs):
    srv = start_server(tmp_path, url=fake.url, password="studio-secret")
    try:
        assert fake.wait_for(lambda: fake.identified == 1), srv.output()
        assert fake.subprotocols == ["obswebsocket.json"]
        game = on_air_game(srv, target=2)
        status = wait_status(srv, lambda s: s["connected"])
        assert status["state"] == "connected" and status["obs_websocket_version"] == "5.5.4"
        assert status["password_set"] and "studio-secret" not in str(status)

        timed(srv, game, type="spin", landed=3)
        assert fake.wait_for(lambda: fake.switches() == [TABLE], 2), fake.requests
        timed(srv, game, type="start_timer")
        timed(srv, game, type="judge", correct=False)
        assert fake.wait_for(lambda: fake.switches() == [TABLE, GAME], 2), fake.requests
        assert fake.program == GAME
        timed(srv, game, type="spin", landed=5)
        assert fake.wait_for(lambda: len(fake.switches()) == 3, 2)
        timed(srv, game, type="start_timer")
        timed(srv, game, type="judge", correct=False)  # the viewers' second point ends the game
        assert fake.wait_for(lambda: fake.switches() == [TABLE, GAME, TABLE, RESULT], 2), fake.requests

        status = wait_status(srv, lambda s: s["switches"] == 4)  # counted once OBS's answer is back
        assert status["switches"] == 4 and status["last_switch"]["scene"] == RESULT
        assert status["last_switch"]["reason"] == "game_over" and status["last_switch"]["delay_ms"] < 1000
        assert status["last_error"] is None and fake.auth_failures == 0

        # Undo and a game that is not on air move no scene.
        srv.call("POST", f"/api/games/{game}/undo")
        other = srv.create(SPEC)
        timed(srv, other, type="spin", landed=1)
        time.sleep(0.5)
        assert len(fake.switches()) == 4
    finally:
        srv.stop()


def test_a_wrong_password_is_reported_and_the_game_goes_on(tmp_path: Path, fake: FakeObs):
    srv = start_server(tmp_path, url=fake.url, password="not-the-password")
    try:
        game = on_air_game(srv)
        status = wait_status(srv, lambda s: s["state"] == "auth_failed")
        assert status["state"] == "auth_failed" and "password" in status["last_error"], status
        assert fake.auth_failures >= 1 and fake.identified == 0
        assert timed(srv, game, type="spin", landed=2) < 0.5
        time.sleep(0.6)
        assert fake.switches() == [] and fake.auth_failures == 1  # a refused password is not retried at once
    finally:
        srv.stop()


def test_obs_away_never_blocks_the_game_and_is_found_when_it_comes(tmp_path: Path):
    port = free_port()
    srv = start_server(tmp_path, url=f"ws://127.0.0.1:{port}")  # no password: OBS without authentication
    obs = FakeObs(port)
    try:
        game = on_air_game(srv)
        status = wait_status(srv, lambda s: s["state"] == "away")
        assert status["state"] == "away" and "connection refused" in status["last_error"]
        spent = [timed(srv, game, type="spin", landed=1), timed(srv, game, type="start_timer"),
                 timed(srv, game, type="judge", correct=True)]
        assert max(spent) < 0.5, spent
        assert obs_status(srv)["switches"] == 0

        obs.start()  # OBS starts: a wanted switch reconnects at once, whatever the backoff
        time.sleep(0.2)
        timed(srv, game, type="spin", landed=2)
        assert obs.wait_for(lambda: obs.switches() == [TABLE], 3), obs_status(srv)
        assert obs_status(srv)["state"] == "connected"

        obs.stop()  # OBS quits mid-show, then comes back within seconds
        timed(srv, game, type="start_timer")
        assert timed(srv, game, type="judge", correct=True) < 0.5
        time.sleep(0.3)
        obs.start()
        assert obs.wait_for(lambda: obs.switches() == [TABLE, GAME], 4), obs_status(srv)
    finally:
        obs.stop()
        srv.stop()


def test_a_hung_obs_times_out_without_holding_anything(tmp_path: Path):
    hole = Blackhole()
    srv = start_server(tmp_path, url=f"ws://127.0.0.1:{hole.port}", toml="timeout_s = 0.5\n")
    try:
        game = on_air_game(srv)
        spent = [timed(srv, game, type="spin", landed=4), timed(srv, game, type="start_timer"),
                 timed(srv, game, type="judge", correct=False)]
        assert max(spent) < 0.5, spent
        status = wait_status(srv, lambda s: s["state"] == "away" and s["last_error"])
        assert "timed out" in status["last_error"] and hole.accepted
        assert obs_status(srv)["switches"] == 0
        # A switch OBS could not take within seconds is dropped, not replayed later.
        status = wait_status(srv, lambda s: s["dropped"] is not None, timeout=8)
        assert status["dropped"]["scene"] == GAME and status["pending"] is None
    finally:
        srv.stop()
        hole.close()


def test_scenes_from_obs_toml_and_a_scene_obs_lacks(tmp_path: Path, fake: FakeObs):
    toml = ('password = "studio-secret"\n[scenes]\nspin = "ЧГК · Вопрос"\nverdict = ""\n'
            'timer_started = "Нет такой сцены"\n')
    srv = start_server(tmp_path, url=fake.url, toml=toml)
    try:
        game = on_air_game(srv)
        assert wait_status(srv, lambda s: s["connected"])["scenes"] == {
            "spin": "ЧГК · Вопрос", "timer_started": "Нет такой сцены", "game_over": RESULT}
        timed(srv, game, type="spin", landed=1)
        assert fake.wait_for(lambda: fake.switches() == ["ЧГК · Вопрос"], 2)
        timed(srv, game, type="start_timer")
        status = wait_status(srv, lambda s: s["last_error"])
        assert "Нет такой сцены" in status["last_error"] and "obs_scenes" in status["last_error"]
        timed(srv, game, type="judge", correct=True)  # verdict turned off: no switch
        time.sleep(0.4)
        assert fake.switches() == ["ЧГК · Вопрос", "Нет такой сцены"] and obs_status(srv)["connected"]

        r = srv.call("POST", "/api/obs/scene", {"scene": "ЧГК · Итог"})  # the panel's test switch
        assert r.status_code == 200
        assert fake.wait_for(lambda: fake.program == "ЧГК · Итог", 2)
        assert srv.call("POST", "/api/obs/scene", {"scene": ""}).status_code == 400
    finally:
        srv.stop()


def test_obs_endpoints_are_for_operators_and_off_without_a_url(tmp_path: Path):
    data = tmp_path / "data"
    srv = Server(data, demo=False).start()
    try:
        import requests
        for method, path in [("GET", "/api/obs"), ("POST", "/api/obs/reload"), ("POST", "/api/obs/scene")]:
            assert requests.request(method, srv.url + path, timeout=5).status_code == 401
        status = obs_status(srv)
        assert status["configured"] is False and status["state"] == "off"
        assert srv.call("POST", "/api/obs/scene", {"scene": "x"}).status_code == 409

        # obs.toml added while the server runs: a reload turns OBS control on.
        fake = FakeObs(free_port()).start()
        try:
            (data / "obs.toml").write_text(f'url = "{fake.url}"\n', encoding="utf-8")
            assert srv.call("POST", "/api/obs/reload").json()["configured"] is True
            assert fake.wait_for(lambda: fake.identified == 1, 3)
            (data / "obs.toml").write_text('url = "http://wrong"\n', encoding="utf-8")
            r = srv.call("POST", "/api/obs/reload")
            assert r.status_code == 400 and "ws://" in r.json()["error"]["message"]
            assert obs_status(srv)["connected"]  # a bad file leaves the running config alone
        finally:
            fake.stop()
    finally:
        srv.stop()


# pure parts --------------------------------------------------------------------------------------

def test_auth_response_matches_an_independent_computation():
    assert auth_response("supersecretpassword", "PZVbYpvAnZut2SS6JNJytDm9", "ztTBnnuqrqaKDzRM3xcVdbYm") == \
        expected_auth("supersecretpassword", "PZVbYpvAnZut2SS6JNJytDm9", "ztTBnnuqrqaKDzRM3xcVdbYm")
    assert auth_response("пароль", "s", "c") != auth_response("пароль", "s", "d")


@pytest.mark.parametrize("text, url, fragment", [
    ("url = 5\n", None, "url must be text"),
    ('url = "http://obs:4455"\n', None, "ws://"),
    ('url = "ws://obs:4455"\nport = 1\n', None, "unknown key 'port'"),
    ('[scenes]\nspun = "x"\n', "ws://obs:4455", "scenes.spun: unknown trigger"),
    ('[scenes]\nspin = 3\n', "ws://obs:4455", "scenes.spin"),
    ("timeout_s = 0\n", "ws://obs:4455", "timeout_s"),
    ("url = \n", None, "not valid TOML"),
])
def test_bad_obs_toml_names_the_key(text: str, url: str | None, fragment: str):
    with pytest.raises(ConfigError) as e:
        parse_config(text, url=url)
    assert fragment in e.value.message


def test_config_layers():
    assert parse_config("") is None
    assert parse_config('url = "ws://a:1"\nenabled = false\n') is None
    c = parse_config('url = "ws://a:1"\npassword = "p"\n', url="ws://b:2", password="q")
    assert (c.url, c.password, c.scenes) == ("ws://b:2", "q", DEFAULT_SCENES)


def test_the_last_mapped_event_of_a_change_wins():
    scenes = dict(DEFAULT_SCENES)
    change = Change("command", "g1", 5, [{"type": "judged", "correct": False, "question": 0}, {"type": "point"},
                                         {"type": "round_closed", "result": "viewers"},
                                         {"type": "game_over", "winner": "viewers"}])
    assert wanted_scene(change, scenes) == (RESULT, "game_over")
    assert wanted_scene(Change("command", "g1", 1, [{"type": "spun", "landed": 3}]), scenes) == (TABLE, "spin")
    assert wanted_scene(Change("command", "g1", 1, [{"type": "timer_started"}]), scenes) is None
