"""Our graphics exported as OGraf, played in a renderer that is not ours: the zip from
`/ograf/export.zip`, unzipped and served from another origin by a plain static server, loaded by
tests/browser/ograf/renderer.html (written from the OGraf spec alone), in Chromium. Every graphic
loads, is transparent before `playAction` and after `stopAction`, and draws while playing; the
question card plays its steps (card → text → answer) and never shows an answer before its verdict."""
from __future__ import annotations

import functools
import io
import json
import shutil
import threading
import time
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from overlay.graphics.game import GRAPHICS
from tests.browser.helpers import WAIT_MS, on_air, settle, transparent_png, wait_off_air, wait_on_air
from tests.browser.test_chromium103 import stage_league, stage_tv
from tests.browser.test_club_overlays import staged as club_staged
from tests.browser.test_overlays import game_spec
from tests.support import Server, free_port, wait_for

pytestmark = pytest.mark.browser
HARNESS = Path(__file__).parent / "ograf" / "renderer.html"
# what the export draws from the data a controller gives (lower-third, ticker, slate, credits)
CUE_DATA = {
    "lower-third": {"title": "Борис Бурда", "subtitle": "Магистр игры", "kind": "player"},
    "ticker": {"title": "Новости", "items": ["Первая строка бегущей строки", "Вторая строка"]},
    "slate": {"kind": "break", "title": "Перерыв", "countdown_ms": 300_000},
    "credits": {"title": "Над игрой работали", "names": [{"name": "Анна Иванова", "role": "Режиссёр"}], "loop": True},
}


class Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def renderer_origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A plain static web server on another port: the other renderer's origin."""
    root = tmp_path_factory.mktemp("renderer")
    httpd = ThreadingHTTPServer(("127.0.0.1", free_port()), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", root
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def server(renderer_origin: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    origin, _ = renderer_origin
    srv = Server(tmp_path_factory.mktemp("ograf") / "data", mode="threading",
                 env={"CHGK_OVERLAY_OGRAF_ORIGINS": json.dumps([origin])}).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def unzipped(server: Server, renderer_origin: tuple[str, Path]) -> str:
    """The export, unzipped where the other renderer serves it, with the harness beside it."""
    origin, root = renderer_origin
    r = server.call("GET", "/ograf/export.zip")
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/zip"
    zipfile.ZipFile(io.BytesIO(r.content)).extractall(root / "package")
    (root / "renderer").mkdir()
    shutil.copy(HARNESS, root / "renderer" / "index.html")  # beside nothing of the package, as a renderer's page is
    return origin


def alpha(page: Page, keep: Path | None = None) -> Image.Image:
    """The alpha channel of what the page draws now, captured over no background
    (`transparent_png`: these checks poll, and a full-frame capture is most of their cost).
    `keep`: the capture is also written there, to look at."""
    # what the page draws after its latest change: a frame produced after it (as Playwright's
    # own screenshot waits), not the last one composited
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    png = transparent_png(page)
    if keep is not None:
        keep.write_bytes(png)
    return Image.open(io.BytesIO(png)).convert("RGBA").getchannel("A")


def transparent(page: Page) -> bool:
    return alpha(page).getextrema()[1] == 0


def opaque_share(page: Page, keep: Path | None = None) -> float:
    a = alpha(page, keep)
    return sum(a.histogram()[129:]) / (a.width * a.height)


def call(page: Page, method: str, params: dict) -> dict:
    result = page.evaluate("([m, p]) => renderer.call(m, p)", [method, params])
    assert result["statusCode"] == 200, f"{method}: {result}"
    return result


def add(page: Page, graphic: str, data: dict) -> dict:
    return page.evaluate("([u, d]) => renderer.add(u, d)", [f"../package/chgk-{graphic}/chgk-{graphic}.ograf.json", data])


def shadow_text(page: Page) -> str:
    return page.evaluate("() => renderer.graphic.shadowRoot.textContent")


def stage(server: Server) -> dict[str, str]:
    """Games and league data in which every graphic has something to draw (as our own pages'
    screenshots stage them): {graphic: the game to put on air}."""
    tv = stage_tv(server)
    club = club_staged(server, "club-tables", 8)
    games = {g: tv["tv"] for g in GRAPHICS}
    games.update({"blitz": tv["blitz"], "result": tv["result"], "club-tables": club, "game-rating": club,
                  "central-table": club, "draw": club_staged(server, "draw", 6),
                  "best-player": club_staged(server, "best-player", 6)})
    stage_league(server)
    return games


def league_data(server: Server, graphic: str) -> dict:
    index = server.api("GET", "/api/public/league")
    if graphic == "series":
        return {"series": index["series"][-1]["id"]}
    return {"season": index["seasons"][-1]["id"], **({"top": 8} if graphic == "season-rating" else {})}


def test_every_exported_graphic_plays_in_another_renderer(chromium: Browser, server: Server, unzipped: str,
                                                          tmp_path: Path) -> None:
    games = stage(server)
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # every file the graphics ask for is found: fonts and pictures named in their stylesheets
    # resolve against the stylesheet, not the renderer's page (ograf-server's page is elsewhere)
    page.on("response", lambda r: errors.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(f"{unzipped}/renderer/index.html")
    page.wait_for_selector("body[data-ready]", state="attached")
    for graphic in GRAPHICS:
        server.api("PUT", "/api/on-air", {"game": games[graphic]})
        data = {"server": server.url, **CUE_DATA.get(graphic, {})}
        if graphic == "bug":
            data["media"] = f"{server.url}/static/lib/owl.svg"
        if graphic in ("season-rating", "final-teams", "series"):
            data.update(league_data(server, graphic))
        assert add(page, graphic, data) in (None, {"statusCode": 200, "statusMessage": "OK"})
        assert transparent(page), f"{graphic}: drawn after load, before playAction"
        call(page, "playAction", {})
        # drawn, and solid once its entrance has run (a picture or a league board starts it only
        # when loaded, after playAction has resolved); the picture kept to look at
        wait_for(lambda: opaque_share(page, keep=tmp_path / f"{graphic}.png") > 0.001, timeout=WAIT_MS / 1000,
                 what=f"{graphic} drawn solid while playing")
        loaded = page.evaluate("() => [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family)")
        assert any("CHGK Sans" in f for f in loaded), f"{graphic}: drawn without our font ({loaded})"
        call(page, "updateAction", {"data": data})
        call(page, "customAction", {"id": "replay", "payload": {}})  # the entrance again: drawn again
        wait_for(lambda: not transparent(page), timeout=WAIT_MS / 1000, what=f"{graphic} drawn again after its replay")
        call(page, "stopAction", {"skipAnimation": graphic == "slate"})
        assert transparent(page), f"{graphic}: still drawn after stopAction resolved"
        assert page.evaluate("() => renderer.remove()")["statusCode"] == 200
    assert errors == []

    game = server.create(game_spec(), on_air=True)
    server.play(game, "spin", landed=2)
    server.play(game, "start_timer")
    # the question card's steps: card → text → answer; the answer only once the verdict is in
    add(page, "question", {"server": server.url})
    assert call(page, "playAction", {})["currentStep"] == 0
    wait_for(lambda: "Зритель 2" in shadow_text(page), timeout=WAIT_MS / 1000, what="the card")
    assert "Этот прибор" not in shadow_text(page)
    assert call(page, "playAction", {"delta": 1})["currentStep"] == 1
    wait_for(lambda: "Этот прибор" in shadow_text(page), timeout=WAIT_MS / 1000, what="the question's text")
    assert call(page, "playAction", {"goto": 2})["currentStep"] == 2
    assert "Термометр" not in shadow_text(page)  # no verdict yet: the public state has no answer
    server.play(game, "judge", correct=True)
    wait_for(lambda: "Термометр" in shadow_text(page), timeout=WAIT_MS / 1000, what="the answer after its verdict")
    page.screenshot(path=str(tmp_path / "question-answer.png"), omit_background=True)
    assert call(page, "playAction", {})["currentStep"] == 3  # past the last step: the end, at the step count
    assert transparent(page)
    page.evaluate("() => renderer.remove()")
    assert errors == []


def test_a_server_api_take_is_drawn_on_the_show_output(chromium: Browser, server: Server, tmp_path: Path) -> None:
    """An OGraf controller's take goes the desk's way: `/overlays/show` (the desk's program
    monitor) draws it on its layer, the desk's program lists it (not from its rundown), and it
    goes out at `stopAction`."""
    from tests.browser.test_rundown import Desk
    server.api("POST", "/api/rundowns", {"name": "Эфир"})
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900})
    desk = Desk(ctx.new_page(), server).open()
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(f"{server.url}/overlays/show")
    page.wait_for_selector("body.ready", state="attached")
    base = "/ograf/v1/renderers/show/target/graphicInstance"
    target = {"layer": "straps"}
    iid = server.api("POST", f"{base}/load", {"renderTarget": target, "graphicId": "chgk-lower-third",
                                               "params": {"data": {"title": "Борис Бурда", "subtitle": "Магистр"}}}
                     )["graphicInstanceId"]
    assert not on_air(page, "lower-third")  # loaded is not on air
    server.api("POST", f"{base}/playAction", {"renderTarget": target, "graphicInstanceId": iid, "params": {}})
    wait_on_air(page, "lower-third")
    expect(page.locator("[data-part='lower-third'] [data-ref='title']")).to_have_text("Борис Бурда")
    settle(page)  # the strap's entrance has ended: it is drawn at full strength
    page.screenshot(path=str(tmp_path / "show-take.png"), omit_background=True)
    assert opaque_share(page) > 0.001
    listed = desk.page.locator("#rd-program li[data-layer='straps']")
    expect(listed).to_have_attribute("data-elsewhere", "1", timeout=WAIT_MS)
    expect(listed).to_contain_text("не из этого сценария")
    server.api("POST", f"{base}/stopAction", {"renderTarget": target, "graphicInstanceId": iid, "params": {}})
    wait_off_air(page, "lower-third")
    expect(listed).to_have_count(0, timeout=WAIT_MS)
    page.close()
    ctx.close()


def test_exported_game_graphics_follow_a_live_game_with_no_load_data(chromium: Browser, server: Server,
                                                                       unzipped: str, tmp_path: Path) -> None:
    """The export knows where it came from: its scoreboard, timer and question card, served from
    another origin and loaded with no data at all, follow the game on air; a graphic whose server
    is out of reach draws a plate saying so — not a blank frame, nothing of a game."""
    pages: dict[str, Page] = {}
    for graphic in ("scoreboard", "timer", "question"):
        page = pages[graphic] = chromium.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(f"{unzipped}/renderer/index.html")
        page.wait_for_selector("body[data-ready]", state="attached")
    game = server.create(game_spec(), on_air=True)
    for graphic, page in pages.items():
        assert add(page, graphic, {}) in (None, {"statusCode": 200, "statusMessage": "OK"})
        call(page, "playAction", {})
    experts = "() => renderer.graphic.shadowRoot.querySelector('[data-ref=experts]').textContent"
    wait_for(lambda: pages["scoreboard"].evaluate(experts) == "0", timeout=WAIT_MS / 1000, what="the score 0")
    server.play(game, "spin", landed=2)
    server.play(game, "start_timer")
    wait_for(lambda: "Зритель 2" in shadow_text(pages["question"]), timeout=WAIT_MS / 1000, what="the card")
    wait_for(lambda: any(c.isdigit() for c in shadow_text(pages["timer"])), timeout=WAIT_MS / 1000,
             what="the minute counting")
    server.play(game, "judge", correct=True)
    wait_for(lambda: pages["scoreboard"].evaluate(experts) == "1", timeout=WAIT_MS / 1000, what="the score 1")
    for graphic, page in pages.items():
        assert page.evaluate("() => renderer.graphic.dataset.connection") == "ok"
        page.screenshot(path=str(tmp_path / f"no-data-{graphic}.png"), omit_background=True)
        page.close()

    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(f"{unzipped}/renderer/index.html")
    page.wait_for_selector("body[data-ready]", state="attached")
    add(page, "scoreboard", {"server": f"http://127.0.0.1:{free_port()}"})  # nobody listens there
    assert transparent(page)  # loaded, not played: nothing drawn, not even the plate
    call(page, "playAction", {})
    plate = "() => { const p = renderer.graphic.shadowRoot.querySelector('.chgk-offline'); return p.hidden ? '' : p.textContent }"
    wait_for(lambda: "Нет связи с сервером" in page.evaluate(plate), timeout=WAIT_MS / 1000, what="the plate")
    wait_for(lambda: opaque_share(page) > 0.001, timeout=WAIT_MS / 1000, what="the plate drawn")
    assert page.evaluate("() => getComputedStyle(renderer.graphic.shadowRoot.getElementById('stage')).visibility") \
        == "hidden"
    page.screenshot(path=str(tmp_path / "offline-plate.png"), omit_background=True)
    call(page, "stopAction", {})
    assert transparent(page)
    page.close()


def test_the_export_bakes_the_servers_address(server: Server, renderer_origin: tuple[str, Path]) -> None:
    """Each game and league graphic's `server` defaults to the address the export came from (or
    PUBLIC_URL); cue graphics have no `server`; server.json beside the components says the same."""
    z = zipfile.ZipFile(io.BytesIO(server.call("GET", "/ograf/export.zip").content))
    for graphic in GRAPHICS:
        folder = f"chgk-{graphic}/"
        assert json.loads(z.read(folder + "ograf/chgk/server.json")) == {"server": server.url}
        props = json.loads(z.read(f"{folder}chgk-{graphic}.ograf.json"))["schema"]["properties"]
        if graphic in ("lower-third", "bug", "ticker", "slate", "credits"):
            assert "server" not in props, graphic
        else:
            assert props["server"]["default"] == server.url, graphic
    one = zipfile.ZipFile(io.BytesIO(server.call("GET", "/ograf/export/chgk-timer.zip").content))
    assert json.loads(one.read("ograf/chgk/server.json")) == {"server": server.url}
    other = server.call("GET", "/ograf/package/ograf/chgk/server.json", headers={"Host": "studio.example:8080"})
    assert other.json() == {"server": "http://studio.example:8080"}


def test_the_media_page_says_where_the_export_connects_and_who_may(server: Server,
                                                                    renderer_origin: tuple[str, Path]) -> None:
    page = server.call("GET", "/control/media")
    assert page.status_code == 200
    card = page.text[page.text.index('id="ograf-export"'):]
    assert f'<code id="ograf-server">{server.url}</code>' in card
    assert f"<li><code>{renderer_origin[0]}</code></li>" in card  # the allowed renderer, by its origin
    assert 'data-i18n="media.ograf_export.add"' in card and "OGRAF_ORIGINS" in card


def test_a_controllers_form_defaults_draw_in_another_renderer(chromium: Browser, server: Server,
                                                               unzipped: str) -> None:
    """SuperFly's controller loads a graphic with every field of its schema filled — "" for a text,
    0 for a time, [] for a list — and the operator's own words in a few: the exported strap and
    slate draw and stay on air (a `duration_ms: 0` once took the strap out the moment it came)."""
    from tests.ograf.test_server_api import form_defaults
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(f"{unzipped}/renderer/index.html")
    page.wait_for_selector("body[data-ready]", state="attached")
    for graphic, words in (("lower-third", {"title": "Борис Бурда"}), ("slate", {"title": "Скоро начнём"})):
        schema = server.api("GET", f"/ograf/v1/graphics/chgk-{graphic}")["graphic"]["schema"]
        data = {**form_defaults(schema), **words}
        assert data.get("duration_ms") == 0
        add(page, graphic, data)
        call(page, "playAction", {})
        wait_for(lambda: words["title"] in page.evaluate(
            "() => renderer.graphic.shadowRoot.getElementById('stage').innerText"), timeout=WAIT_MS / 1000,
            what=f"{graphic}'s title drawn")
        drawn_since = time.monotonic()
        while time.monotonic() - drawn_since < 1.5:  # still there well after a 0 ms "duration"
            assert opaque_share(page) > 0.001, f"{graphic} left air by itself"
        call(page, "stopAction", {"skipAnimation": True})
        page.evaluate("() => renderer.remove()")
    page.close()
