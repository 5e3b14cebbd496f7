"""The rundown's preview page as a new operator meets it (issue 36), in the system Chromium against
a real server process.

`/overlays/show?preview=1` opened bare (as the README names it) draws a plate saying the operators'
key is needed and where to get it, not a blank frame; the desk shows the page's address with its
preview key (never the operators' token) and copies it; that address draws the focused item; a key
put into the address of an open page is taken without a reload.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import requests
from playwright.sync_api import Browser, expect

from tests.browser.helpers import Tab, screenshot, screenshot_dir
from tests.browser.test_rundown import Desk, output, wait_output
from tests.support import TOKEN, Server
from tests.web.test_rundowns import Rd

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLATE = ".preview-refused"


def test_the_preview_without_a_key_says_why_and_the_desk_gives_the_address(
        server_factory: Callable[..., Server], chromium: Browser, tmp_path: Path) -> None:
    srv = server_factory().start()
    rd = Rd(srv, "Эфир")
    rd.add(segment="Начало", label="Ведущий", graphic="lower-third", layer="straps", data={"title": "Борис Крюк"})
    rd.act("focus", item=rd.labels()[0][1])
    bare, keyed, later = Tab(chromium), Tab(chromium), Tab(chromium)
    ctx = chromium.new_context(viewport={"width": 1600, "height": 1000}, locale="ru-RU")
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=srv.url)
    try:
        # opened as the README names it: the plate says what is missing and where to get it
        page = output(bare, f"{srv.url}/overlays/show?preview=1")
        plate = page.locator(PLATE)
        expect(plate).to_be_visible()
        expect(plate).to_contain_text("Нужен ключ оператора")
        expect(plate).to_contain_text("#key=")
        box = plate.bounding_box()
        assert box and box["width"] > 800 and box["height"] > 150         # drawn, big enough to read
        shots = screenshot_dir(tmp_path)
        screenshot(page, shots, "preview-needs-key")

        # the desk: the address with its preview key, copied with one press
        desk = Desk(ctx.new_page(), srv).open()
        address = desk.page.locator("#rd-preview-address")
        expect(address).to_have_value(re.compile(rf"^{re.escape(srv.url)}/overlays/show\?preview=1#key=[0-9a-f]{{32}}$"))
        url = address.input_value()
        assert TOKEN not in url and srv.password not in url                 # never the operators' secrets
        key = url.rsplit("#key=", 1)[1]
        assert requests.get(f"{srv.url}/api/games", headers={"Authorization": f"Bearer {key}"},
                            timeout=10).status_code == 401                # the key opens the preview only
        desk.page.click("#rd-preview-copy")
        desk.saw_notice(code="copied", text="Адрес превью скопирован")
        assert desk.page.evaluate("navigator.clipboard.readText()") == url

        # that address draws the focused item, no plate
        kpage = output(keyed, url)
        wait_output(kpage, "lower-third", True)
        expect(kpage.locator("[data-part='lower-third'] [data-ref='title']")).to_have_text("Борис Крюк")
        assert kpage.locator(PLATE).count() == 0

        # a wrong key: the plate; the right one put into the address: taken without a reload
        lpage = output(later, f"{srv.url}/overlays/show?preview=1#key=0000")
        expect(lpage.locator(PLATE)).to_be_visible()
        lpage.evaluate("window.__same_page = true")
        lpage.evaluate("k => { location.hash = k; }", url.split("#", 1)[1])
        wait_output(lpage, "lower-third", True)
        expect(lpage.locator(PLATE)).to_have_count(0)
        assert lpage.evaluate("window.__same_page === true")
        for tab in (bare, keyed, later):
            assert tab.errors == [], tab.errors
    finally:
        ctx.close()
        for tab in (bare, keyed, later):
            tab.close()
