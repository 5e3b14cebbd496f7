"""The panel's «Рендер»: an administrator renders a finished game in the background (its own
process), watches its progress and downloads the file; only operators may; the live server goes
on answering meanwhile. Real server, real Chromium, real ffmpeg/ffprobe."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
import requests
from playwright.sync_api import BrowserContext, expect

from tests.browser.helpers import PanelPage
from tests.post.games import play_tv, tv_spec
from tests.support import Server


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("render-panel") / "data", mode="threading", demo=False).start()
    yield s
    s.stop()


@pytest.fixture
def context(chromium, tmp_path: Path) -> Iterator[BrowserContext]:  # noqa: ANN001 - tests/conftest.py's
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU", accept_downloads=True)
    yield ctx
    ctx.close()


def test_render_a_finished_game_from_the_panel_and_download_it(srv: Server, context: BrowserContext,
                                                               tmp_path: Path) -> None:
    game = play_tv(srv, quick_spin=True)
    running = srv.create(tv_spec())  # not finished: no render button, and the API refuses it
    panel = PanelPage(context.new_page(), srv).open("/control/setup")
    page = panel.page
    row = page.locator(f'tr[data-game="{game}"]')
    expect(row.locator(".render-start")).to_have_text("Рендер")
    expect(page.locator(f'tr[data-game="{running}"] .render-start')).to_have_count(0)
    row.locator(".render-format").select_option("webm")
    row.locator(".render-start").click()
    item = page.locator(".render-item").first
    expect(item).to_contain_text(f"{game} · scoreboard · WebM")
    # meanwhile the live server answers and plays on (the render is a process of its own)
    assert srv.call("GET", "/api/time").ok
    assert srv.play(running, "spin", landed=1)["round"]["sector"] == 1
    link = page.locator(".render-download")
    expect(link).to_have_text("Скачать", timeout=120_000)
    job = srv.api("GET", "/api/renders")["renders"][-1]
    assert job["status"] == "done" and job["url"] == f"/api/renders/{job['id']}/file"
    with page.expect_download() as dl:
        link.click()
    path = tmp_path / "game.webm"
    dl.value.save_as(path)
    info = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-of", "json", str(path)],
                                     capture_output=True, text=True, check=True).stdout)
    assert info["streams"][0]["codec_name"] == "vp9" and info["streams"][0]["tags"]["alpha_mode"] == "1"
    assert panel.errors == []
    # refused: a game not finished, another render's name, strangers
    r = srv.call("POST", "/api/renders", {"game": running})
    assert r.status_code == 422 and r.json()["error"]["code"] == "game_not_finished"
    r = srv.call("POST", "/api/renders", {"game": game, "graphic": "weather"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "unknown_graphic"
    assert srv.call("GET", "/api/renders/r99").status_code == 404
    for method, path in [("GET", "/api/renders"), ("POST", "/api/renders"), ("GET", f"/api/renders/{job['id']}/file")]:
        assert requests.request(method, srv.url + path, json={"game": game}, timeout=10).status_code == 401
    # deleted: the file goes
    assert srv.api("DELETE", f"/api/renders/{job['id']}") == {"deleted": job["id"]}
    assert not list((srv.data / "renders").glob("*.webm"))
