"""OBS control where real OBS cannot take us (tests/obs/test_real_obs.py has the rest): a hung
OBS and malformed obs-websocket frames over real loopback sockets, driven by a real server
process — the game never waits and the panel's status says what is wrong — plus the endpoints'
access rules and the pure parts (obs.toml, the password answer, which event asks for which scene)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from overlay.obs.control import DEFAULT_SCENES, ConfigError, parse_config, wanted_scene
from overlay.obs.websocket import auth_response
from overlay.core.session import Change
from tests.obs.fake_obs import Blackhole, MalformedObs, expected_auth
from tests.obs.helpers import obs_status, on_air_game, start_server, timed, wait_status
from tests.support import Server, free_port

TABLE, GAME, RESULT = DEFAULT_SCENES["spin"], DEFAULT_SCENES["verdict"], DEFAULT_SCENES["game_over"]
# A command is answered in milliseconds; one that waited on OBS would take obs.toml's timeout
# (10 s here). The bound only separates those two.
NOT_WAITING_S = 3.0


def test_a_hung_obs_times_out_without_holding_anything(tmp_path):
    hole = Blackhole()
    srv = start_server(tmp_path, url=f"ws://127.0.0.1:{hole.port}", toml="timeout_s = 10\n")
    try:
        game = on_air_game(srv)
        spent = [timed(srv, game, type="spin", landed=4), timed(srv, game, type="start_timer"),
                 timed(srv, game, type="judge", correct=False)]
        assert max(spent) < NOT_WAITING_S, spent
        assert obs_status(srv)["state"] == "connecting"  # the OBS task is still waiting for a Hello
        status = wait_status(srv, lambda s: s["state"] == "away" and s["last_error"], timeout=40)
        assert "timed out" in status["last_error"] and hole.accepted, status
        assert obs_status(srv)["switches"] == 0
        # A switch OBS could not take within seconds is dropped, not replayed later.
        status = wait_status(srv, lambda s: s["dropped"] is not None, timeout=40)
        assert status["dropped"]["scene"] == GAME and status["pending"] is None
    finally:
        srv.stop()
        hole.close()


@pytest.fixture
def malformed(request) -> Iterator[MalformedObs]:
    obs = MalformedObs(free_port(), request.param).start()
    yield obs
    obs.stop()


@pytest.mark.parametrize("malformed", ["hello", "response"], indirect=True)
def test_malformed_frames_are_reported_and_retried_without_holding_the_game(tmp_path, malformed: MalformedObs):
    srv = start_server(tmp_path, url=malformed.url)
    try:
        game = on_air_game(srv)
        spent = [timed(srv, game, type="spin", landed=4), timed(srv, game, type="start_timer"),
                 timed(srv, game, type="judge", correct=False)]
        assert max(spent) < NOT_WAITING_S, spent
        status = wait_status(srv, lambda s: s["state"] == "away" and s["last_error"], timeout=20)
        assert status["last_error"] == "OBS sent something that is not an obs-websocket message", status
        if malformed.stage == "response":  # it got as far as asking for a scene
            assert malformed.wait_for(lambda: "SetCurrentProgramScene" in malformed.requests)
        assert malformed.wait_for(lambda: malformed.connections >= 2, 30), "the server retries"
        assert obs_status(srv)["switches"] == 0
    finally:
        srv.stop()


def test_obs_endpoints_are_for_operators_and_off_without_a_url(tmp_path):
    srv = Server(tmp_path / "data", demo=False).start()
    try:
        for method, path in [("GET", "/api/obs"), ("POST", "/api/obs/reload"), ("POST", "/api/obs/scene")]:
            assert requests.request(method, srv.url + path, timeout=10).status_code == 401
        status = obs_status(srv)
        assert status["configured"] is False and status["state"] == "off"
        assert srv.call("POST", "/api/obs/scene", {"scene": "x"}).status_code == 409
        assert srv.call("POST", "/api/obs/scene", {"scene": ""}).status_code == 400  # checked before anything
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
