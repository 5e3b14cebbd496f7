"""The rundown desk's words (issue 36), in the system Chromium against a real server process: a
refused take says the game's field in the operator's words («капитан», never `captain`) and
leaves once a later take has moved the rundown on; the scenario list's item count follows the
rundown as items are added, without a reload; an uploaded OGraf graphic's row says its name,
not `ograf:<id>`."""
from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.test_ograf_render import FIXTURES, package
from tests.browser.test_panel import spec
from tests.browser.test_rundown import Desk
from tests.support import Server
from tests.web.test_rundowns import Rd

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_a_refused_take_in_words_leaves_with_a_later_take(server_factory: Callable[..., Server],
                                                          chromium: Browser) -> None:
    srv = server_factory().start()
    game = spec()
    del game["experts"]["captain"]                        # a team without a captain named
    srv.create(game, on_air=True)
    rd = Rd(srv, "Эфир 6 декабря")
    rd.add(segment="Начало", label="Капитан", graphic="lower-third", layer="straps", data={"title": "{{captain}}"})
    rd.add(segment="Начало", label="Ведущий", graphic="lower-third", layer="straps", data={"title": "Борис Крюк"})
    ctx = chromium.new_context(viewport={"width": 1600, "height": 1000}, locale="ru-RU")
    try:
        desk = Desk(ctx.new_page(), srv)
        desk.expected = lambda message: True              # the refused take's 422 is the point here
        desk.open()
        page = desk.page
        expect(page.locator("#rd-select option:checked")).to_have_text("Эфир 6 декабря (2)")

        desk.press("ArrowDown")                           # focus «Капитан»
        expect(desk.item("Капитан")).to_have_class(re.compile(r"\bfocused\b"))
        page.keyboard.press(" ")                          # refused: no captain in the game on air
        refusal = page.locator('.notice[data-code="game_field_missing"]')
        expect(refusal).to_be_visible()
        expect(refusal).to_contain_text("капитан")
        assert "captain" not in refusal.inner_text()

        desk.press("ArrowDown")                           # «Ведущий», taken: the refusal is history
        desk.press(" ")
        expect(desk.item("Ведущий")).to_have_class(re.compile(r"\bon-air\b"))
        expect(refusal).to_have_count(0)

        # an item added (here from another desk, through the API): the list counts it at once
        rd.add(segment="Финал", label="Итог", graphic="result")
        expect(desk.item("Итог")).to_be_visible()
        expect(page.locator("#rd-select option:checked")).to_have_text("Эфир 6 декабря (3)")
    finally:
        ctx.close()


def test_an_uploaded_graphics_row_says_its_name(server_factory: Callable[..., Server], chromium: Browser) -> None:
    srv = server_factory().start()
    r = srv.http.post(srv.url + "/api/ograf", timeout=60,
                      files={"file": ("hello.zip", package(FIXTURES / "ograf-own" / "hello"))})
    assert r.status_code == 201, r.text
    rd = Rd(srv, "Эфир")
    rd.add(segment="Начало", label="Привет", graphic="ograf:own-hello", layer="og", data={"text": "Привет"})
    ctx = chromium.new_context(viewport={"width": 1600, "height": 1000}, locale="ru-RU")
    try:
        desk = Desk(ctx.new_page(), srv).open()
        meta = desk.item("Привет").locator(".rd-meta").first
        expect(meta).to_contain_text("Hello (test) (OGraf)")
        assert "ograf:" not in meta.inner_text()
    finally:
        ctx.close()
