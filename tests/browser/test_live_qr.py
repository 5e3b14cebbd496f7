"""The audience page's QR code on air: a `slate` and a `bug` with `"qr": true`, taken through
`POST /api/graphics` and a rundown item on a real server with `LIVE_URL` set, drawn by the system
Chromium at 1920×1080 and read back from the screenshot with a QR decoder (zxing-cpp): the code
must name the configured public address and nothing else. Without `LIVE_URL`, or with bad data,
the take is refused in words and nothing changes.

Screenshots go to $CHGK_SCREENSHOT_DIR when set (docs/screenshots), else to a temporary folder.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from tests.browser.helpers import SAFE, PanelPage, Tab, screenshot, screenshot_dir, settle, wait_js, wait_on_air
from tests.browser.test_show_graphics import logo, upload
from tests.support import Server, scale_out, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LIVE = "https://live.example.org/live"


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("qr") / "data", env={"CHGK_OVERLAY_LIVE_URL": LIVE}).start()
    yield s
    s.stop()


def take(srv: Server, graphic: str, data: dict) -> dict:
    return srv.api("POST", "/api/graphics", {"action": "show", "graphic": graphic, "data": data})


def decoded(path: Path, box: dict | None = None) -> list[str]:
    """The QR codes zxing-cpp reads in a screenshot (or in `box` of it)."""
    im = Image.open(path).convert("L")
    if box:
        im = im.crop((int(box["left"]), int(box["top"]), int(box["right"]), int(box["bottom"])))
    return [r.text for r in zxingcpp.read_barcodes(im, formats=zxingcpp.BarcodeFormat.QRCode)]


def card(page: Page, scope: str) -> dict:
    """The QR card's and its code's boxes, the pixels a module takes, and its words."""
    return page.evaluate("""scope => {
      const card = document.querySelector(scope + ' .qr-card');
      const box = (el) => { const r = el.getBoundingClientRect();
        return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width}; };
      const code = card.querySelector('.qr-code');
      const n = code.viewBox.baseVal.width;
      return {card: box(card), code: box(code), px: box(code).width / n, n,
              caption: card.querySelector('.qr-caption').textContent,
              address: card.querySelector('.qr-address').textContent,
              captionPx: parseFloat(getComputedStyle(card.querySelector('.qr-caption')).fontSize),
              addressPx: parseFloat(getComputedStyle(card.querySelector('.qr-address')).fontSize)};
    }""", scope)


def inside_safe(box: dict) -> bool:
    return (box["left"] >= SAFE["left"] - 0.5 and box["top"] >= SAFE["top"] - 0.5
            and box["right"] <= SAFE["right"] + 0.5 and box["bottom"] <= SAFE["bottom"] + 0.5)


@pytest.mark.parametrize("theme", ["classic", "light"])
def test_a_slate_shows_the_audience_page_qr_code_that_a_phone_reads(srv: Server, overlay: Tab, tmp_path: Path,
                                                                    theme: str):
    # a sent qr_url is not believed: the server writes LIVE_URL
    answer = take(srv, "slate", {"kind": "break", "countdown_ms": 300_000, "qr": True,
                                 "qr_caption": "Следите за игрой", "qr_url": "https://evil.example/x"})
    assert answer["graphics"]["slate"]["data"]["qr_url"] == LIVE
    page = overlay.open(f"{srv.url}/overlays/slate?theme={theme}")
    wait_on_air(page, "slate")
    wait_js(page, "() => document.querySelector('.sl').classList.contains('with-qr')")
    settle(page)
    c = card(page, ".sl")
    assert (c["caption"], c["address"]) == ("Следите за игрой", "live.example.org/live")
    assert c["px"] == 9 and c["n"] == 29 + 8  # whole pixels a module; the code and its quiet zone
    assert c["captionPx"] >= 28 and c["addressPx"] >= 26
    assert inside_safe(c["card"])
    # the lines stay clear of the code
    title = page.eval_on_selector(".sl-title", "el => el.getBoundingClientRect().right")
    assert title < c["card"]["left"]
    shot = screenshot_dir(tmp_path)
    screenshot(page, shot, f"slate-qr-{theme}")
    assert decoded(shot / f"slate-qr-{theme}.png") == [LIVE]
    assert decoded(shot / f"slate-qr-{theme}.png", c["code"]) == [LIVE]
    # taken again without qr: the code goes, the slate stays
    take(srv, "slate", {"kind": "break"})
    wait_js(page, "() => !document.querySelector('.sl').classList.contains('with-qr')")
    settle(page)
    page.screenshot(path=str(tmp_path / "no-qr.png"))
    assert decoded(tmp_path / "no-qr.png") == []
    srv.api("POST", "/api/graphics", {"action": "hide", "graphic": "slate"})


def test_a_bug_shows_the_qr_code_alone_or_beside_its_logo_in_every_corner(srv: Server, overlay: Tab,
                                                                          tmp_path: Path):
    page = overlay.open(f"{srv.url}/overlays/bug")
    take(srv, "bug", {"qr": True, "qr_caption": "Следите за игрой"})
    wait_on_air(page, "bug")
    settle(page)
    c = card(page, ".bug")
    assert c["px"] == 6 and inside_safe(c["card"]) and c["captionPx"] >= 26
    assert page.eval_on_selector(".bug-box", "el => getComputedStyle(el).display") == "none"  # no logo
    shot = screenshot_dir(tmp_path)
    screenshot(page, shot, "bug-qr")
    assert decoded(shot / "bug-qr.png", c["code"]) == [LIVE]

    pic = upload(srv, logo("#0f766e", "CLUB SOVA", (400, 150)))
    for corner in ("top-left", "bottom-right", "bottom-left", "top-right"):
        take(srv, "bug", {"media": pic["id"], "corner": corner, "qr": True})
        wait_js(page, "c => document.querySelector(`[data-part='bug']`).classList.contains('corner-' + c)"
                      " && document.querySelector('.bug-img.front')", corner)
        settle(page)
        c = card(page, ".bug")
        logo_box = page.eval_on_selector(".bug-img.front", "el => { const r = el.getBoundingClientRect();"
                                                           " return {left: r.left, right: r.right}; }")
        assert inside_safe(c["card"]), corner
        assert c["caption"] == "" and c["address"] == "live.example.org/live"
        # the code at the corner's outer edge, the logo inside it
        if corner.endswith("left"):
            assert c["card"]["right"] <= logo_box["left"], corner
        else:
            assert c["card"]["left"] >= logo_box["right"], corner
        page.screenshot(path=str(tmp_path / f"bug-{corner}.png"))
        assert decoded(tmp_path / f"bug-{corner}.png", c["code"]) == [LIVE], corner
    screenshot(page, shot, "bug-qr-logo")
    srv.api("POST", "/api/graphics", {"action": "hide", "graphic": "bug"})


def test_a_rundown_item_takes_the_slate_with_its_code(srv: Server, overlay: Tab, tmp_path: Path):
    rid = srv.api("POST", "/api/rundowns", {"name": "Перерыв с кодом"})["id"]
    srv.api("POST", f"/api/rundowns/{rid}/items", {"segment": "Перерыв", "label": "Заставка", "graphic": "slate",
                                                   "layer": "cards", "data": {"kind": "soon", "qr": True}})
    page = overlay.open(f"{srv.url}/overlays/show?layers=cards")
    srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": "take", "item": "Заставка"})
    wait_on_air(page, "slate")
    wait_js(page, "() => document.querySelector('.sl').classList.contains('with-qr')")
    settle(page)
    page.screenshot(path=str(tmp_path / "show.png"))
    assert decoded(tmp_path / "show.png", card(page, ".sl")["code"]) == [LIVE]
    srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": "all_out"})


def test_bad_qr_data_is_refused_in_words_and_changes_nothing(srv: Server):
    before = srv.api("GET", "/api/graphics")
    for graphic, data, words in (
            ("slate", {"qr": "yes"}, "'qr' must be true"),
            ("bug", {"qr": 1}, "'qr' must be true"),
            ("slate", {"qr": True, "qr_caption": "x" * 61}, "'qr_caption' must be a text of at most 60"),
            ("bug", {"qr": False}, "'media'"),  # no code, no picture: nothing to show
            ("bug", {"qr": True, "corner": "middle"}, "'corner'")):
        r = srv.call("POST", "/api/graphics", {"action": "show", "graphic": graphic, "data": data})
        assert r.status_code == 400 and words in r.json()["error"]["message"], (data, r.text)
    assert srv.api("GET", "/api/graphics")["seq"] == before["seq"]


@pytest.mark.parametrize("live_url", [None, "javascript:alert(1)", "live.example.org/live"])
def test_without_a_public_address_the_code_is_refused(tmp_path: Path, live_url: str | None):
    """The overlay's own host is not the public one (OBS loads it from localhost): no LIVE_URL,
    no code — from the API and from a rundown alike — and nothing changes."""
    env = {"CHGK_OVERLAY_LIVE_URL": live_url} if live_url else {}
    srv = Server(tmp_path / "data", mode="threading", env=env).start()
    try:
        before = srv.api("GET", "/api/graphics")
        for graphic in ("slate", "bug"):
            r = srv.call("POST", "/api/graphics", {"action": "show", "graphic": graphic, "data": {"qr": True}})
            assert r.status_code == 422, r.text
            error = r.json()["error"]
            assert error["code"] == "no_live_url" and "LIVE_URL" in error["message"], error
        rid = srv.api("POST", "/api/rundowns", {"name": "Без адреса"})["id"]
        srv.api("POST", f"/api/rundowns/{rid}/items", {"label": "Код", "graphic": "bug", "data": {"qr": True}})
        rev = srv.api("GET", f"/api/rundowns/{rid}")["rev"]
        r = srv.call("POST", f"/api/rundowns/{rid}/actions", {"action": "take", "item": "Код"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "no_live_url", r.text
        after = srv.api("GET", "/api/graphics")
        assert after["seq"] == before["seq"] and "bug" not in after["graphics"] and after["layers"] == {}
        assert srv.api("GET", f"/api/rundowns/{rid}")["rev"] == rev
        # the code of /live/qr.svg is not an on-air graphic: it still answers, naming the request's host
        assert srv.http.get(srv.url + "/live/qr.svg", timeout=10).ok
    finally:
        srv.stop()


def test_an_edge_draws_the_code_the_writer_chose(tmp_path: Path, chromium: Browser):
    """An edge has no LIVE_URL of its own here (its /live/qr.svg would name its own host): the
    slate it serves still shows the writer's LIVE_URL, carried in the graphic's data."""
    tab = Tab(chromium)
    try:
        with scale_out(tmp_path, edges=1, env={"CHGK_OVERLAY_LIVE_URL": LIVE}) as so:
            page = tab.open(f"{so.edges[0].url}/overlays/slate")
            take(so.writer, "slate", {"kind": "soon", "qr": True, "qr_caption": "Следите за игрой"})
            wait_on_air(page, "slate")
            wait_js(page, "() => document.querySelector('.sl').classList.contains('with-qr')")
            settle(page)
            page.screenshot(path=str(tmp_path / "edge.png"))
            assert decoded(tmp_path / "edge.png", card(page, ".sl")["code"]) == [LIVE]
            assert tab.errors == []
    finally:
        tab.close()


class Desk(PanelPage):
    home = "/control/graphics"

    def expected(self, message: ConsoleMessage) -> bool:
        url = (message.location or {}).get("url", "")
        return "status of 422" in message.text and "/api/graphics" in url  # the refusal asserted below


def test_the_graphics_desk_takes_the_code_and_says_why_it_cannot(srv: Server, chromium: Browser, tmp_path: Path):
    on_air = lambda s: s.api("GET", "/api/graphics")["graphics"]  # noqa: E731
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    bare = Server(tmp_path / "bare", mode="threading").start()  # no LIVE_URL
    try:
        desk = Desk(ctx.new_page(), srv).open()
        page = desk.page
        page.select_option("#slate-form [name=kind]", "break")
        page.check("#slate-form [name=qr]")
        page.fill("#slate-form [name=qr_caption]", "Следите за игрой")
        page.click('[data-action="slate-take"]')
        wait_for(lambda: on_air(srv).get("slate", {}).get("data", {}).get("qr"))
        data = on_air(srv)["slate"]["data"]
        assert (data["qr_url"], data["qr_caption"]) == (LIVE, "Следите за игрой")

        # the bug with no picture («—»): the code alone
        page.click("summary:has-text('Логотип в углу')")
        expect(page.locator('#bug-form [name=media] option[value=""]')).to_have_count(1)
        page.select_option("#bug-form [name=media]", "")
        page.check("#bug-form [name=qr]")
        page.click('[data-action="bug-take"]')
        wait_for(lambda: "bug" in on_air(srv))
        assert {k: v for k, v in on_air(srv)["bug"]["data"].items() if k != "qr_modules"} == {
            "corner": "top-right", "qr": True, "qr_url": LIVE}
        for name in ("slate", "bug"):
            srv.api("POST", "/api/graphics", {"action": "hide", "graphic": name})

        # a server that does not know its public address: the refusal in the panel's words
        assert desk.errors == []
        ctx.close()  # cookies ignore the port: the other server's login gets its own context
        ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
        other = Desk(ctx.new_page(), bare).open()
        seq = bare.api("GET", "/api/graphics")["seq"]
        other.page.check("#slate-form [name=qr]")
        other.page.click('[data-action="slate-take"]')
        expect(other.notice("no_live_url")).to_contain_text("Не задан адрес страницы зрителей (LIVE_URL)")
        expect(other.notice("no_live_url")).to_contain_text("задайте LIVE_URL")
        assert bare.api("GET", "/api/graphics")["seq"] == seq and "slate" not in on_air(bare)
        assert other.errors == []
    finally:
        ctx.close()
        bare.stop()

