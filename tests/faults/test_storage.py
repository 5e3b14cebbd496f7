"""The data folder fails under a running show: the disk fills up (a real tmpfs of a few
megabytes), or the filesystem turns read-only (a real ext4 image mounted errors=remount-ro,
to which the kernel is told of an error — what a failing USB disk or SD card does).

What must hold: every change is refused with a clear 503 `storage_unavailable`, never a 500;
a refused change changes nothing and broadcasts nothing, so the screens stay true; reads and
new overlay connections keep working; once the disk is back, the server carries on, and after
a kill and a restart the game is exactly the last acknowledged one, in an intact database.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest
import requests

from tests.faults.helpers import (Ext4, Watcher, fill, integrity, login, panel_csrf, server_output, steady,
                                  tmpfs, tv_spec, unfill, watching)
from tests.support import TOKEN, Server

PACK = ("? Текст вопроса из пакета на полном диске.\n! Ответ.\n/ Комментарий.\n@ Автор (Город)\n").encode()
OSC_TOML = '[targets.mixer]\nhost = "127.0.0.1"\nport = 9\npresets = ["generic"]\n'


def snapshot(srv: Server, game: str) -> dict:
    """Everything a refused change must leave as it was."""
    log = srv.call("GET", f"/api/games/{game}/log").json()
    return {
        "state": steady(srv.state(game)),
        "public": steady(srv.call("GET", f"/api/games/{game}/public").json()),
        "events": log["events"],
        "journal": len(log["journal"]),
        "games": sorted((g["id"], g["rev"]) for g in srv.call("GET", "/api/games").json()["games"]),
        "on_air": srv.call("GET", "/api/on-air").json()["game"],
        "graphics": {k: v for k, v in srv.call("GET", "/api/graphics").json().items() if k != "server_now"},
        "osc": srv.call("GET", "/api/osc/config").json()["toml"],
        "packs": srv.call("GET", "/api/packs").json(),
    }


def changes(srv: Server, game: str, other: str) -> list[tuple[str, requests.Response]]:
    """One of every kind of change an operator can make, each sent once."""
    url = srv.url
    auth = {"Authorization": f"Bearer {TOKEN}"}
    return [
        ("command judge", srv.command(game, type="judge", correct=True)),
        ("command pause", srv.command(game, type="pause_timer")),
        ("undo", srv.call("POST", f"/api/games/{game}/undo")),
        ("graphics show", srv.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                                             "data": {"title": "Новый титр"}})),
        ("graphics hide", srv.call("POST", "/api/graphics", {"action": "hide", "graphic": "scoreboard"})),
        ("create game", srv.call("POST", "/api/games", tv_spec("Ещё одна"))),
        ("on-air", srv.call("PUT", "/api/on-air", {"game": other})),
        ("osc config", srv.call("PUT", "/api/osc/config", {"toml": OSC_TOML})),
        ("pack import", requests.post(url + "/api/packs?filename=p.4s", data=PACK, headers=auth, timeout=10)),
    ]


def refusal_problem(name: str, r: requests.Response) -> str | None:
    """None when `r` is a clear 503 storage_unavailable; else what is wrong with it."""
    if r.status_code != 503:
        return f"{name}: {r.status_code} {r.text[:200]}"
    try:
        error = r.json()["error"]
    except (ValueError, KeyError, TypeError):
        return f"{name}: 503 without a JSON error: {r.text[:200]}"
    if error.get("code") != "storage_unavailable" or len(error.get("message") or "") < 20:
        return f"{name}: {error}"
    return None


def start_game(srv: Server) -> tuple[str, str]:
    game = srv.create(tv_spec(), on_air=True)
    other = srv.create(tv_spec("Запасная игра"))
    for body in ({"type": "spin", "landed": 3}, {"type": "start_timer"}):
        assert srv.command(game, **body).status_code == 200
    assert srv.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                              "data": {"title": "Анна Иванова"}}).status_code == 200
    return game, other


def refused_everything(srv: Server, game: str, other: str, overlay: Watcher, panel: Watcher) -> tuple[dict, list[str]]:
    """Send every kind of change; check that none changed or broadcast anything and that reads
    and new connections still work. Returns the state before and the refusals that were not
    a clear 503."""
    before = snapshot(srv, game)
    seen = (len(overlay.states), len(overlay.graphics), len(panel.states), len(panel.graphics))
    problems = [p for p in (refusal_problem(name, r) for name, r in changes(srv, game, other)) if p]
    # the /control socket answers like HTTP
    ack = panel.sio.call("command", {"type": "judge", "correct": False}, namespace="/control", timeout=10)
    assert ack.get("status") == 503 and ack["error"]["code"] == "storage_unavailable", ack
    time.sleep(0.5)  # a broadcast, had there been one, would have arrived by now
    assert snapshot(srv, game) == before, "a refused change changed something"
    assert (len(overlay.states), len(overlay.graphics), len(panel.states), len(panel.graphics)) == seen, \
        "a refused change was broadcast"
    # reads still work, and a screen that connects now gets the true state
    late = Watcher(srv.url, "/overlay")
    try:
        late.wait(lambda w: w.states and w.graphics, 10, "state and graphics on connect")
        assert steady(late.last()) == before["public"]
    finally:
        late.close()
    return before, problems


def test_full_disk_refuses_every_change_with_503_and_keeps_the_screens_true(tmp_path: Path):
    data = tmp_path / "data"
    with tmpfs(data, "6m"):
        srv = Server(data, demo=False).start()
        try:
            game, other = start_game(srv)
            with watching(srv) as (overlay, panel):
                cookie = login(srv.url)
                csrf = panel_csrf(cookie, srv.url)

                fill(data)
                before, problems = refused_everything(srv, game, other, overlay, panel)
                # the panel's logout needs the disk too (it records the revoked login): no 500
                r = cookie.post(srv.url + "/control/logout", data={"csrf": csrf}, allow_redirects=False, timeout=10)
                if r.status_code == 500:
                    problems.append(f"logout: 500 {r.text[:200]}")

                unfill(data)
                r = srv.command(game, type="judge", correct=True)
                assert r.status_code == 200, r.text
                acked = r.json()["state"]
                assert acked["rev"] == before["state"]["rev"] + 1
                overlay.wait(lambda w: w.last()["rev"] == acked["rev"], what="the next change on screen")
                srv.kill()
                srv.start()
                assert steady(srv.state(game)) == steady(acked)
                assert integrity(data / "chgk.sqlite3") == "ok"
                assert problems == [], "changes not refused with a clear 503"
        finally:
            srv.stop()


def test_time_up_and_graphic_expiry_on_a_full_disk_wait_for_space_without_flooding_the_log(tmp_path: Path):
    """The clock cannot record a time-up while the disk is full: the timer stays at 0 on the
    screens, the server says so in its log without repeating it fifty times a second, and the
    time-up is recorded as soon as there is space again."""
    data = tmp_path / "data"
    with tmpfs(data, "6m"):
        srv = Server(data, demo=False).start()
        try:
            spec = tv_spec()
            # long enough that the disk is surely full before the minute ends, even on a loaded machine
            spec["timers"]["minute"] = 3_000
            game = srv.create(spec, on_air=True)
            srv.command(game, type="spin", landed=2)
            started = srv.command(game, type="start_timer").json()["state"]
            rev, ends_at = started["rev"], started["timer"]["ends_at"]
            srv.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                               "data": {"title": "Титр", "duration_ms": 3_000}})
            fill(data)
            lines = server_output(srv).count("\n")
            # the clock has had 3 s past the end of the minute to try (and fail) to record the time-up
            deadline = time.monotonic() + 30
            while (state := srv.state(game))["timer"]["server_now"] < ends_at + 3_000:
                assert time.monotonic() < deadline, "the server's clock stopped"
                time.sleep(0.1)
            assert state["rev"] == rev and state["round"]["phase"] == "discussion"
            assert state["timer"]["remaining_ms"] == 0
            assert srv.proc.poll() is None
            logged = server_output(srv).count("\n") - lines
            unfill(data)
            deadline = time.monotonic() + 5
            while srv.state(game)["rev"] != rev + 1:
                assert time.monotonic() < deadline, "the time-up was not recorded once the disk had space"
                time.sleep(0.05)
            assert srv.state(game)["round"]["phase"] == "answer"
            deadline = time.monotonic() + 5
            while "lower-third" in srv.call("GET", "/api/graphics").json()["graphics"]:
                assert time.monotonic() < deadline, "the expired graphic stayed on air"
                time.sleep(0.05)
            assert logged < 100, f"{logged} log lines in 3 s of a full disk"
        finally:
            srv.stop()


def test_data_folder_turning_read_only_mid_show(tmp_path: Path):
    disk = Ext4(tmp_path / "data.ext4", tmp_path / "data").create()
    srv = Server(disk.mountpoint, demo=False)
    try:
        srv.start()
        game, other = start_game(srv)
        acked = srv.state(game)
        with watching(srv) as (overlay, panel):
            disk.break_readonly()
            _, problems = refused_everything(srv, game, other, overlay, panel)
            assert srv.proc.poll() is None, "the server died when its data folder turned read-only"

            srv.kill()
            disk.repair()
            srv.start()
            assert steady(srv.state(game)) == steady(acked)
            assert integrity(disk.mountpoint / "chgk.sqlite3") == "ok"
            r = srv.command(game, type="judge", correct=True)
            assert r.status_code == 200, r.text
            assert problems == [], "changes not refused with a clear 503"
    finally:
        srv.stop()
        disk.unmount(lazy=True)


def test_a_crash_during_the_first_start_leaves_no_unusable_secrets(tmp_path: Path):
    """The first start writes the session key and the generated password. A crash or power cut
    while writing leaves them empty (ext4 keeps the new, zero-length file). The next start must
    make fresh ones — not sign sessions with an empty key, nor lock the operator out."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "secret_key").write_text("")
    (data / "operator_password").write_text("")
    srv = Server(data, demo=False, env={"CHGK_OVERLAY_PASSWORD": "", "CHGK_OVERLAY_TOKEN": ""})
    try:
        srv.start()
        page = requests.get(srv.url + "/control/", timeout=10)
        assert page.status_code == 200, page.text[:300]
        password = (data / "operator_password").read_text().strip()
        key = (data / "secret_key").read_text().strip()
        assert len(password) >= 8 and len(key) >= 32
        http = login(srv.url, password)
        assert http.get(srv.url + "/api/games", timeout=10).status_code == 200
    finally:
        srv.stop()


@pytest.fixture(autouse=True)
def _root_only() -> None:
    import os
    assert os.geteuid() == 0, "these tests mount real filesystems and run as root"
