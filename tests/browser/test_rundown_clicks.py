"""A double click on a rundown item opens it in the editor even when the list is re-rendered
between the clicks and during the second one: the first click's own focus comes back from the
server, and another desk edits another item while the mouse button is down. The list keeps each
row's element (common.js keyedChildren), so the browser's click is not cancelled under the
operator's hand — CI once caught the editor left on the previous item."""
from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, ConsoleMessage, expect

from tests.browser.helpers import PanelPage
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WAIT = 15_000  # ms


class Desk(PanelPage):
    home = "/control/rundown"

    def expected(self, message: ConsoleMessage) -> bool:
        """The program and preview monitors are overlay pages, tested on their own."""
        url = (message.location or {}).get("url", "")
        return bool(re.search(r"/(overlays/|static/(overlays|lib|themes|fonts|sounds)/)", url))


def test_a_double_click_survives_re_renders_of_the_list(server_factory: Callable[..., Server],
                                                         chromium: Browser) -> None:
    srv = server_factory().start()
    rid = srv.api("POST", "/api/rundowns", {"name": "Клики"})["id"]
    for label in ("Ведущий", "Логотип", "Капитан"):
        srv.api("POST", f"/api/rundowns/{rid}/items",
                {"segment": "Начало", "label": label, "graphic": "lower-third", "layer": "straps",
                 "out": "manual", "data": {"title": label}})
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    try:
        desk = Desk(ctx.new_page(), srv).open()
        page = desk.page
        body = page.locator("body")
        row = page.locator('.rd-item[data-label="Ведущий"]')
        expect(row).to_have_count(1, timeout=WAIT)
        expect(page.locator("#rd-ed-title")).not_to_contain_text("Ведущий")
        box = row.bounding_box()
        assert box
        page.mouse.move(box["x"] + box["width"] / 3, box["y"] + box["height"] / 2)

        # the first click: its focus comes back from the server and re-renders the list
        page.mouse.down()
        page.mouse.up()
        expect(row).to_have_class(re.compile(r"\bfocused\b"), timeout=WAIT)

        # the second click: another desk renames another item while the button is down
        page.mouse.down(click_count=2)
        label = row.locator(".rd-label").element_handle()
        rev = body.get_attribute("data-rundown-rev")
        other = next(i for s in srv.api("GET", f"/api/rundowns/{rid}")["segments"] for i in s["items"]
                     if i["label"] == "Капитан")
        srv.api("PATCH", f"/api/rundowns/{rid}/items/{other['id']}", {"label": "Капитан команды"})
        expect(body).not_to_have_attribute("data-rundown-rev", rev or "", timeout=WAIT)
        expect(page.locator('.rd-item[data-label="Капитан команды"]')).to_have_count(1)
        page.mouse.up(click_count=2)
        # the row under the pointer kept its elements (its item came back with its keys reordered)
        assert label.evaluate("el => el.isConnected")
        expect(page.locator("#rd-ed-title")).to_contain_text("Ведущий", timeout=WAIT)
        expect(page.locator("#f-label")).to_have_value("Ведущий")
        assert not desk.errors, desk.errors
    finally:
        ctx.close()
