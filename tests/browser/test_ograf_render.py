"""Uploaded OGraf graphics played by our renderer (issue 27 part 2), in the system Chromium: the
EBU examples (tests/fixtures/ograf/, vendored with provenance) are uploaded as one package, and
each in turn is taken from a rundown on one `/overlays/show` page — load + playAction, continue
through its steps, F5 (updateAction), its custom actions, out (stopAction) — and checked as
drawn (visible text in its frame, pixels of the page's screenshot). Then a hostile graphic
(tests/fixtures/ograf-hostile/) runs in the same renderer and shows that it can read neither
the cookies nor /api, nor reach the page around it. Screenshots: $CHGK_SCREENSHOT_DIR or tmp.
"""
from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import WAIT_MS, PanelPage, Tab, screenshot_dir
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
EXAMPLES = ("minimal", "l3rd-name", "renderer-test", "ograf-logo")


def package(*folders: Path) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for folder in folders:
            for p in sorted(folder.rglob("*")):
                if p.is_file():
                    z.write(p, f"{folder.name}/{p.relative_to(folder).as_posix()}")
    return out.getvalue()


def count(img: Image.Image, box: tuple[int, int, int, int], rgb: tuple[int, int, int], tol: int = 40) -> int:
    """Opaque pixels in `box` (left, top, right, bottom) within `tol` of `rgb` on every channel."""
    region = img.crop(box).convert("RGBA")
    return sum(1 for px in region.get_flattened_data()
               if px[3] > 200 and all(abs(a - b) <= tol for a, b in zip(px, rgb)))


def drawn(img: Image.Image) -> int:
    """Pixels that are not fully transparent (the output is transparent where nothing is on air)."""
    return sum(1 for a in img.convert("RGBA").getchannel("A").get_flattened_data() if a)


class Show:
    """One rundown driven over HTTP and the output page that plays it."""

    def __init__(self, srv: Server, page: Page, shots: Path, errors: list[str]) -> None:
        self.srv, self.page, self.shots, self.errors = srv, page, shots, errors
        self.rid = srv.api("POST", "/api/rundowns", {"name": "OGraf"})["id"]

    def add(self, graphic: str, data: dict, layer: str = "main") -> str:
        return self.srv.api("POST", f"/api/rundowns/{self.rid}/items",
                            {"graphic": f"ograf:{graphic}", "layer": layer, "data": data})["id"]

    def act(self, action: str, item: str, **extra: Any) -> dict:
        r = self.srv.call("POST", f"/api/rundowns/{self.rid}/actions", {"action": action, "item": item, **extra})
        assert r.status_code == 200, r.text
        return r.json()

    def calls(self, item: str, *expected: str) -> None:
        """Waits until the item's frame has answered exactly these calls, in order (a refused
        call is marked with '!')."""
        want = ",".join(expected)
        try:
            self.page.wait_for_function(
                "([item, want]) => document.querySelector(`iframe.ograf-frame[data-item='${item}']`)?.dataset.calls === want",
                arg=[item, want], timeout=WAIT_MS)
        except Exception:
            seen = self.page.evaluate("() => [...document.querySelectorAll('iframe.ograf-frame')].map(f => ({...f.dataset}))")
            raise AssertionError(f"{item}: wanted calls {want}; frames: {seen}; page errors: {self.errors}") from None

    def frame(self, item: str) -> Any:
        return self.page.frame_locator(f"iframe.ograf-frame[data-item='{item}']")

    def gone(self, item: str) -> None:
        self.page.wait_for_function("(item) => !document.querySelector(`iframe.ograf-frame[data-item='${item}']`)",
                                    arg=item, timeout=WAIT_MS)

    def shot(self, name: str) -> Image.Image:
        path = self.shots / f"ograf-{name}.png"
        self.page.screenshot(path=str(path), omit_background=True)
        return Image.open(path)


class Desk(PanelPage):
    home = "/control/rundown"

    def expected(self, message: Any) -> bool:
        """The monitors are overlay pages in iframes (tested on their own), and the hostile
        graphic's refusals there are the point."""
        return "/overlays/" in (message.location or {}).get("url", "") or "/ograf/" in (message.location or {}).get("url", "")


def test_ebu_examples_play_from_the_rundown_and_a_hostile_graphic_is_contained(
        server_factory: Callable[..., Server], chromium: Browser, tmp_path: Path) -> None:
    srv = server_factory().start()
    r = srv.http.post(srv.url + "/api/ograf", timeout=60, files={"file": ("examples.zip", package(
        *(FIXTURES / "ograf" / name for name in EXAMPLES), FIXTURES / "ograf-hostile"))})
    assert r.status_code == 201, r.text
    broken = io.BytesIO()
    with zipfile.ZipFile(broken, "w") as z:  # a graphic that fails to load (as one needing a newer browser does)
        z.writestr("broken/b.ograf.json", json.dumps({
            "$schema": "https://ograf.ebu.io/v1/specification/json-schemas/graphics/schema.json", "id": "broken",
            "name": "Broken", "main": "g.mjs", "supportsRealTime": True, "supportsNonRealTime": False}))
        z.writestr("broken/g.mjs", "export default class B extends HTMLElement {"
                                   " async load() { throw new Error('needs a newer browser'); } }")
    assert srv.http.post(srv.url + "/api/ograf", files={"file": ("b.zip", broken.getvalue())}).status_code == 201

    tab = Tab(chromium)
    # an operator's session cookie in this browser: the graphic must not read it
    host = srv.url.split("//", 1)[1].split(":")[0]
    tab.context.add_cookies([{"name": "chgk_session", "value": "secret-session-cookie", "domain": host, "path": "/"}])
    # what the graphics' frames asked for: answered (requestfinished) or stopped in the browser
    answered: list[str] = []
    stopped: dict[str, str | None] = {}
    in_frame = lambda req: "/ograf/frame/" in (req.frame.url or "")  # noqa: E731
    tab.page.on("requestfinished", lambda req: in_frame(req) and answered.append(req.url))
    tab.page.on("requestfailed", lambda req: in_frame(req) and stopped.__setitem__(req.url, req.failure))
    page = tab.open(f"{srv.url}/overlays/show")
    show = Show(srv, page, screenshot_dir(tmp_path), tab.errors)
    blank = show.shot("blank")
    assert drawn(blank) == 0

    # minimal: "Hello world!" in a white box; F5 reaches updateAction; out: stopAction, dispose
    item = show.add("minimal-example", {"message": "#00aa00"})
    show.act("take", item)
    show.calls(item, "load", "playAction")
    expect(show.frame(item).get_by_text("Hello world!")).to_be_visible()
    img = show.shot("minimal")
    assert count(img, (0, 0, 300, 120), (255, 255, 255), 5) > 1000  # the white box
    assert count(img, (0, 0, 300, 120), (0, 0, 0), 60) > 100  # its text and border
    assert drawn(img) < 300 * 120  # and nothing else
    show.act("update", item)
    show.calls(item, "load", "playAction", "updateAction")
    show.act("out", item)
    show.gone(item)
    assert drawn(show.shot("minimal-out")) == 0

    # l3rd-name: the name and title drawn on their red and dark-red bars; F5 with a new name;
    # the custom action "highlight"; out animates away
    item = show.add("l3rd-name", {"name": "Анна Иванова", "title": "Ведущая"}, layer="straps")
    show.act("take", item)
    show.calls(item, "load", "playAction")
    expect(show.frame(item).get_by_text("Анна Иванова")).to_be_visible()
    expect(show.frame(item).get_by_text("Ведущая")).to_be_visible()
    img = show.shot("l3rd-name")
    assert count(img, (150, 800, 900, 1000), (255, 0, 0), 30) > 3000, "the red name bar is not drawn"
    srv.api("PATCH", f"/api/rundowns/{show.rid}/items/{item}", {"data": {"name": "Борис Петров", "title": "Знаток"}})
    show.act("update", item)
    show.calls(item, "load", "playAction", "updateAction")
    expect(show.frame(item).get_by_text("Борис Петров")).to_be_visible()
    show.act("custom", item, id="highlight")
    show.calls(item, "load", "playAction", "updateAction", "customAction")
    show.shot("l3rd-name-updated")
    # OBS restarted mid-item: a new page loads it, plays it and replays its custom action
    tab.open(f"{srv.url}/overlays/show")
    show.calls(item, "load", "playAction", "customAction")
    expect(show.frame(item).get_by_text("Борис Петров")).to_be_visible()
    show.act("out", item)
    show.gone(item)
    assert drawn(show.shot("l3rd-name-out")) == 0

    # the desk: an item made with the form generated from the manifest's schema, taken with
    # Space, its custom action run from its button, then out
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    desk = Desk(ctx.new_page(), srv).open()
    desk.page.select_option("#rd-select", show.rid)
    desk.page.click("#f-new")
    desk.page.select_option("#f-graphic", "ograf:l3rd-name")
    expect(desk.page.locator("#f-data #og-title")).to_be_visible()  # the form from the manifest's schema
    expect(desk.page.locator("#og-name")).to_have_value("John Doe")  # the schema's default
    desk.page.fill("#og-name", "Вера Сергеевна")
    desk.page.fill("#og-title", "Знаток года")
    desk.page.fill("#f-label", "Вера")
    desk.page.fill("#f-layer", "straps")
    desk.page.click("#f-save")
    row = desk.page.locator('.rd-item[data-label="Вера"]')
    row.click()
    expect(row).to_have_class(re.compile("focused"))
    # the desk's preview monitor plays the focused item in its own sandboxed frame
    preview = desk.page.frame_locator("#rd-preview").frame_locator("iframe.ograf-frame")
    expect(preview.get_by_text("Вера Сергеевна")).to_be_visible()
    button = desk.page.locator('#rd-ograf-actions [data-action="highlight"] button')
    expect(button).to_have_text("Highlight")
    desk.page.screenshot(path=str(show.shots / "ograf-desk.png"), full_page=True)
    vera = srv.api("GET", f"/api/rundowns/{show.rid}")["focus"]
    assert srv.api("GET", f"/api/rundowns/{show.rid}")["segments"][-1]["items"][-1]["data"] == {
        "name": "Вера Сергеевна", "title": "Знаток года"}
    desk.page.keyboard.press("Space")
    show.calls(vera, "load", "playAction")
    expect(show.frame(vera).get_by_text("Вера Сергеевна")).to_be_visible()
    button.click()
    show.calls(vera, "load", "playAction", "customAction")
    desk.page.keyboard.press("Space")  # one step: Space takes it out
    show.gone(vera)
    # a graphic that fails in the program monitor is told on the desk, in the operator's language
    broken = show.add("broken", {})
    show.act("take", broken)
    show.calls(broken, "load!", "playAction!")
    told = desk.page.locator('.notice[data-code="ograf_failed"]')
    expect(told).to_contain_text("не работает в эфире")
    expect(told).to_contain_text("needs a newer browser")
    show.act("out", broken)
    show.gone(broken)
    assert desk.errors == [], desk.errors
    ctx.close()

    # renderer-test: its own checks of our load() and first playAction() pass (it says so), and
    # the blue fill it sizes from renderCharacteristics covers its red backdrop edge to edge
    item = show.add("renderer-test", {"message": "Hello"})
    show.act("take", item)
    show.calls(item, "load", "playAction")
    expect(show.frame(item).get_by_text("Step 2 completed", exact=False)).to_be_visible()
    img = show.shot("renderer-test")
    assert count(img, (0, 0, 1920, 1080), (0x87, 0xa0, 0xde), 8) > 1920 * 1080 * 0.8
    assert count(img, (0, 0, 1920, 1080), (255, 0, 0), 30) == 0
    show.act("out", item)
    show.gone(item)

    # ograf-logo: the logo fades in top left on play and out on stop
    item = show.add("minimal-logo", {})
    show.act("take", item)
    show.calls(item, "load", "playAction")
    logo = show.frame(item).locator("img")
    expect(logo).to_have_css("opacity", "1")
    img = show.shot("ograf-logo")
    assert drawn(img) > 40 * 40 and drawn(img.crop((0, 0, 400, 400))) == drawn(img)  # the logo, top left
    show.act("out", item)
    show.gone(item)

    errors_before_hostile = list(tab.errors)
    assert errors_before_hostile == [], errors_before_hostile

    # the hostile graphic: every attempt blocked, the page where it was
    item = show.add("hostile", {"target": "/api/rundowns"})
    show.act("take", item)
    show.calls(item, "load", "playAction")
    report = show.frame(item).locator("#report")
    expect(report).to_be_visible()
    lines = report.inner_text().splitlines()
    assert len(lines) == 13, lines
    assert all(": blocked" in line for line in lines), lines
    assert "secret-session-cookie" not in report.inner_text()
    show.shot("hostile")
    assert page.url == f"{srv.url}/overlays/show"
    assert page.evaluate("() => !!window.chgkOverlay && document.body.classList.contains('ready')")
    ours = ("/ograf/pkg/", "/static/ograf/frame.js", "/ograf/frame/")
    assert [u for u in answered if not any(p in u for p in ours)] == []  # nothing reached /api or another origin
    assert {u: why for u, why in stopped.items() if not any(p in u for p in ours)} == {
        f"{srv.url}/api/rundowns": "csp", "https://example.org/evil.mjs": "csp"}  # the CSP stopped them in the browser
    show.act("out", item)
    show.gone(item)
    tab.close()
