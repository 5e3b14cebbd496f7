"""Against real OBS Studio (Debian's OBS 29 with obs-websocket 5, under Xvfb; tests/obs/real_obs.py):
the committed scene collections and a generated one load with every scene, item and browser
source; the server's scene switching moves OBS's program scene on spin, verdict and game over;
a wrong password and a scene OBS lacks are reported in words; OBS quitting mid-show delays no
command, and OBS coming back is picked up. One OBS for the module (three starts: the last test
quits it cleanly, then crashes it, and starts it again each time)."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from overlay.obs.control import DEFAULT_SCENES
from tests.obs.real_obs import Obs, require_obs
from tests.obs.helpers import SPEC, on_air_game, start_server, timed, wait_status
from tests.browser.helpers import PanelPage
from tests.support import ROOT, Server

TABLE, GAME, RESULT = DEFAULT_SCENES["spin"], DEFAULT_SCENES["verdict"], DEFAULT_SCENES["game_over"]
QUESTION = "ЧГК · Вопрос"
COMMITTED = {"chgk-tv": ROOT / "obs_scenes" / "chgk-tv.json", "chgk-club": ROOT / "obs_scenes" / "chgk-club.json"}
TV = "ЧГК · ТВ"
GENERATED_ARGS = ["--rules", "tv", "--base-url", "http://10.20.30.40:8080", "--lang", "en", "--name", "Studio B"]
# A command is answered in milliseconds; one that waited on OBS would take its timeout (set
# high here) or hang. The bound only separates those two, it measures nothing.
NOT_WAITING_S = 3.0


@pytest.fixture(scope="module")
def obs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Obs]:
    require_obs()
    generated = subprocess.run([sys.executable, "-m", "overlay", "obs-scenes", *GENERATED_ARGS],
                               cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert generated.returncode == 0, generated.stderr
    files = {stem: path.read_text(encoding="utf-8") for stem, path in COMMITTED.items()}
    files["studio-b"] = generated.stdout
    # 5 frames a second: what these tests ask of OBS (collections, scenes, obs-websocket) does not
    # depend on its frame rate, and at 30 its software drawing took a core for the module's whole
    # run (28.6 CPU-s alone, 46 - 99 in a full run; 10.2 at 5)
    instance = Obs(tmp_path_factory.mktemp("obs"), files, current="chgk-tv", fps=5)
    try:
        instance.start()
        yield instance
    finally:
        instance.close()


def use_collection(obs: Obs, name: str) -> None:
    obs.request("SetCurrentSceneCollection", {"sceneCollectionName": name})  # returns once loaded
    assert obs.request("GetSceneCollectionList")["currentSceneCollectionName"] == name


def check_loaded(obs: Obs, collection: dict) -> None:
    """OBS holds what the file says: the scenes in order, each scene's items bottom to top
    (full-canvas, locked as written) and every browser source's URL, size and CSS."""
    use_collection(obs, collection["name"])
    sources = {s["name"]: s for s in collection["sources"]}
    listed = obs.request("GetSceneList")
    in_obs = [s["sceneName"] for s in sorted(listed["scenes"], key=lambda s: -s["sceneIndex"])]
    assert in_obs == [o["name"] for o in collection["scene_order"]]
    assert listed["currentProgramSceneName"] == collection["current_program_scene"]
    for scene in in_obs:
        items = sorted(obs.request("GetSceneItemList", {"sceneName": scene})["sceneItems"],
                       key=lambda i: i["sceneItemIndex"])
        wanted = sources[scene]["settings"]["items"]
        assert [i["sourceName"] for i in items] == [w["name"] for w in wanted], scene
        for item, want in zip(items, wanted):
            t = item["sceneItemTransform"]
            assert (t["positionX"], t["positionY"], t["boundsWidth"], t["boundsHeight"]) == (0, 0, 1920, 1080)
            assert item["sceneItemEnabled"] and item["sceneItemLocked"] is want["locked"]
    browsers = [s for s in collection["sources"] if s["id"] == "browser_source"]
    inputs = obs.request("GetInputList", {"inputKind": "browser_source"})["inputs"]
    assert sorted(i["inputName"] for i in inputs) == sorted(s["name"] for s in browsers)
    for source in browsers:
        got = obs.request("GetInputSettings", {"inputName": source["name"]})
        settings, want = got["inputSettings"], source["settings"]
        assert got["inputKind"] == "browser_source"
        assert (settings["url"], settings["width"], settings["height"]) == (want["url"], 1920, 1080), source["name"]
        assert settings["css"] == want["css"] and settings["reroute_audio"] is want["reroute_audio"]
        assert settings["shutdown"] is False and settings["restart_when_active"] is False


@pytest.mark.parametrize("stem", list(COMMITTED))
def test_a_committed_collection_loads_whole(obs: Obs, stem: str):
    check_loaded(obs, json.loads(COMMITTED[stem].read_text(encoding="utf-8")))


def test_a_generated_collection_for_another_host_and_language_loads(obs: Obs):
    collection = json.loads(obs.files["studio-b"])
    check_loaded(obs, collection)
    urls = [obs.request("GetInputSettings", {"inputName": s["name"]})["inputSettings"]["url"]
            for s in collection["sources"] if s["id"] == "browser_source"]
    assert urls and all(u.startswith("http://10.20.30.40:8080/overlays/") and "lang=en" in u for u in urls)
    # Its sources are the TV collection's (derived uuids): switching back and forth duplicates nothing.
    use_collection(obs, TV)
    assert len(obs.request("GetInputList", {"inputKind": "browser_source"})["inputs"]) == len(urls)


def test_spin_verdict_and_game_over_move_obs_program_scene(obs: Obs, tmp_path: Path):
    use_collection(obs, TV)
    obs.request("SetCurrentProgramScene", {"sceneName": QUESTION})
    srv = start_server(tmp_path, url=obs.url, password=obs.password)
    try:
        status = wait_status(srv, lambda s: s["connected"], timeout=60)
        assert status["state"] == "connected" and status["obs_websocket_version"].startswith("5."), status
        assert status["password_set"] and obs.password not in json.dumps(status)
        game = on_air_game(srv, target=2)

        timed(srv, game, type="spin", landed=3)
        assert obs.wait_program(TABLE) == TABLE
        timed(srv, game, type="start_timer")
        timed(srv, game, type="judge", correct=False)
        assert obs.wait_program(GAME) == GAME
        timed(srv, game, type="spin", landed=5)
        assert obs.wait_program(TABLE) == TABLE
        timed(srv, game, type="start_timer")
        timed(srv, game, type="judge", correct=False)  # the viewers' second point ends the game
        assert obs.wait_program(RESULT) == RESULT

        status = wait_status(srv, lambda s: s["switches"] == 4, timeout=20)
        assert status["switches"] == 4 and status["last_switch"]["scene"] == RESULT, status
        assert status["last_switch"]["reason"] == "game_over" and status["last_error"] is None

        # A game that is not on air moves nothing.
        other = srv.create({**SPEC, "title": "not on air"})
        timed(srv, other, type="spin", landed=1)
        time.sleep(0.5)
        assert obs.program_scene() == RESULT and srv.api("GET", "/api/obs")["switches"] == 4
    finally:
        srv.stop()


def graphics_desk(chromium: Browser, srv: Server) -> PanelPage:
    """The operator's graphics desk (Russian), where the OBS card is; logged in, previews off
    (eight live overlay pages would only load the machine)."""
    context = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    context.add_init_script("localStorage.setItem('chgk.panel.previews', '0')")
    panel = PanelPage(context.new_page(), srv)
    panel.page.goto(srv.url + "/control/graphics")
    panel.page.fill("input[name=password]", srv.password)
    panel.page.click("button[type=submit]")
    expect(panel.page.locator("#obs-card")).not_to_have_attribute("data-state", "", timeout=30_000)
    return panel


def test_a_wrong_password_is_reported_in_words_and_the_game_goes_on(obs: Obs, tmp_path: Path, chromium: Browser):
    use_collection(obs, TV)
    obs.request("SetCurrentProgramScene", {"sceneName": QUESTION})
    srv = start_server(tmp_path, url=obs.url, toml='password = "not-the-password"\n')
    try:
        status = wait_status(srv, lambda s: s["state"] == "auth_failed", timeout=60)
        assert status["state"] == "auth_failed", status
        assert status["last_error"] == ("OBS refused the password: compare obs.toml's password with "
                                        "OBS → Tools → WebSocket Server Settings")
        game = on_air_game(srv)
        assert timed(srv, game, type="spin", landed=2) < NOT_WAITING_S
        time.sleep(1.0)
        assert obs.program_scene() == QUESTION and srv.api("GET", "/api/obs")["switches"] == 0

        panel = graphics_desk(chromium, srv)  # the operator reads it on the graphics desk
        card = panel.page.locator("#obs-card")
        expect(card).to_have_attribute("data-state", "auth_failed", timeout=30_000)
        expect(card.locator("#obs-state")).to_have_text(
            "OBS не принял пароль. Сверьте password в obs.toml с паролем в OBS (Сервис → Настройки сервера "
            "WebSocket → Показать данные для подключения), затем «Перечитать obs.toml».")
        expect(card.locator("#obs-detail")).to_contain_text("OBS refused the password")

        # The operator fixes obs.toml and presses the button: connected, in words.
        (srv.data / "obs.toml").write_text(f'password = "{obs.password}"\n', encoding="utf-8")
        panel.page.click("#obs-reload")
        expect(card).to_have_attribute("data-state", "connected", timeout=60_000)
        expect(card.locator("#obs-state")).to_contain_text("OBS подключён")
        assert not panel.errors, panel.errors
        panel.page.context.close()
    finally:
        srv.stop()


def test_scenes_from_obs_toml_and_a_scene_obs_lacks(obs: Obs, tmp_path: Path):
    use_collection(obs, TV)
    obs.request("SetCurrentProgramScene", {"sceneName": GAME})
    toml = (f'password = "{obs.password}"\n[scenes]\nspin = "{QUESTION}"\nverdict = ""\n'
            'timer_started = "Нет такой сцены"\n')
    srv = start_server(tmp_path, url=obs.url, toml=toml)
    try:
        game = on_air_game(srv)
        assert wait_status(srv, lambda s: s["connected"], timeout=60)["scenes"] == {
            "spin": QUESTION, "timer_started": "Нет такой сцены", "game_over": RESULT}
        timed(srv, game, type="spin", landed=1)
        assert obs.wait_program(QUESTION) == QUESTION
        timed(srv, game, type="start_timer")
        status = wait_status(srv, lambda s: s["last_error"], timeout=20)
        assert "Нет такой сцены" in status["last_error"] and "obs_scenes" in status["last_error"], status
        timed(srv, game, type="judge", correct=True)  # verdict turned off: no switch
        time.sleep(0.5)
        assert obs.program_scene() == QUESTION and srv.api("GET", "/api/obs")["connected"]

        assert srv.call("POST", "/api/obs/scene", {"scene": RESULT}).status_code == 200  # the panel's test switch
        assert obs.wait_program(RESULT) == RESULT
    finally:
        srv.stop()


def test_obs_toml_added_while_running_connects_on_reload(obs: Obs, tmp_path: Path):
    data = tmp_path / "data"
    srv = Server(data, demo=False).start()
    try:
        assert srv.api("GET", "/api/obs")["configured"] is False
        (data / "obs.toml").write_text(f'url = "{obs.url}"\npassword = "{obs.password}"\n', encoding="utf-8")
        assert srv.api("POST", "/api/obs/reload")["configured"] is True
        assert wait_status(srv, lambda s: s["connected"], timeout=60)["connected"]
        (data / "obs.toml").write_text('url = "http://wrong"\n', encoding="utf-8")
        r = srv.call("POST", "/api/obs/reload")
        assert r.status_code == 400 and "ws://" in r.json()["error"]["message"]
        assert srv.api("GET", "/api/obs")["connected"]  # a bad file leaves the running config alone
    finally:
        srv.stop()


def test_obs_quitting_mid_show_delays_nothing_and_its_return_is_picked_up(obs: Obs, tmp_path: Path):
    """Last in the module: OBS quits cleanly mid-show and comes back, then crashes and comes back."""
    use_collection(obs, TV)
    srv = start_server(tmp_path, url=obs.url, password=obs.password, toml="timeout_s = 10\n")
    try:
        wait_status(srv, lambda s: s["connected"], timeout=60)
        game = on_air_game(srv)
        timed(srv, game, type="spin", landed=2)
        assert obs.wait_program(TABLE) == TABLE

        # (clean quit or crash, the commands while OBS is away, the first after it is back → its scene)
        rounds = [(False, [{"type": "start_timer"}, {"type": "judge", "correct": True}, {"type": "spin", "landed": 3}],
                   [{"type": "start_timer"}, {"type": "judge", "correct": False}], GAME),
                  (True, [{"type": "spin", "landed": 4}, {"type": "start_timer"}, {"type": "judge", "correct": True}],
                   [{"type": "spin", "landed": 5}, {"type": "start_timer"}, {"type": "judge", "correct": False}], GAME)]
        for crash, while_away, once_back, scene in rounds:
            obs.quit(crash=crash)  # mid-show
            spent = [timed(srv, game, **command) for command in while_away]
            assert max(spent) < NOT_WAITING_S, (crash, spent)
            # (while OBS shuts down it may still accept and drop a connection: then it is gone)
            status = wait_status(srv, lambda s: "connection refused" in (s["last_error"] or ""), timeout=60)
            assert status["state"] == "away" and "is OBS running" in status["last_error"], status

            obs.start()  # OBS is back: the server finds it by itself, and the next move switches
            status = wait_status(srv, lambda s: s["connected"], timeout=90)
            assert status["connected"], (crash, status)
            # OBS reopens its collection as last saved (it may save on a switch): start elsewhere,
            # once no switch wanted while it was away is still on its way
            wait_status(srv, lambda s: s["pending"] is None, timeout=30)
            obs.request("SetCurrentProgramScene", {"sceneName": QUESTION})
            for command in once_back:
                timed(srv, game, **command)
            assert obs.wait_program(scene) == scene, crash
    finally:
        srv.stop()
