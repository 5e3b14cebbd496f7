"""The desk's item form and what it puts on the output (issue 36), in the system Chromium against a
real server process.

- A graphic chosen in the form brings its own layer: «Логотип в углу» goes to `bug`, not `main`
  where it would replace the question card; a layer the operator typed stays theirs. The level
  choice names the graphic's own level, and the form says which level is drawn on top.
- On the output, a question card taken over a slate (a background) leaves the slate's countdown
  readable: the slate's lines rise until the clock clears the card (checked as drawn, screenshot).
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.helpers import Tab, screenshot, screenshot_dir, wait_revealed, wait_still
from tests.browser.test_panel import spec
from tests.browser.test_rundown import Desk, output, wait_output
from tests.support import Server
from tests.web.test_rundowns import Rd

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_layer_follows_the_graphic_chosen(server_factory: Callable[..., Server], chromium: Browser) -> None:
    srv = server_factory().start()
    rd = Rd(srv, "Эфир")
    rd.add(segment="Начало", label="Ведущий", graphic="lower-third", layer="straps", data={"title": "Борис"})
    ctx = chromium.new_context(viewport={"width": 1600, "height": 1000}, locale="ru-RU")
    try:
        desk = Desk(ctx.new_page(), srv).open()
        page = desk.page
        expect(desk.item("Ведущий")).to_be_visible()
        page.click("#f-new")
        layer, stack = page.locator("#f-layer"), page.locator("#f-stack option").first
        expect(layer).to_have_value("straps")                     # a new item: a strap, on the straps
        page.select_option("#f-graphic", "bug")               # «Логотип в углу»
        expect(page.locator("#f-graphic option:checked")).to_have_text("Логотип в углу")
        expect(layer).to_have_value("bug")
        expect(stack).to_have_text("как у графики: поверх всего")
        page.select_option("#f-graphic", "question")
        expect(layer).to_have_value("main")
        expect(stack).to_have_text("как у графики: игра")
        page.select_option("#f-graphic", "slate")
        expect(layer).to_have_value("back")
        expect(stack).to_have_text("как у графики: фон (внизу)")
        expect(page.locator("#rd-stack-hint")).to_be_visible()
        expect(page.locator("#rd-stack-hint")).to_contain_text("фон (внизу) → игра → плашки → поверх всего")

        # a layer the operator typed is theirs: another graphic does not move it
        page.click("#f-new")
        page.fill("#f-layer", "my-layer")
        page.select_option("#f-graphic", "ticker")
        expect(layer).to_have_value("my-layer")
    finally:
        ctx.close()


def test_a_question_card_over_a_slate_leaves_its_countdown_readable(server_factory: Callable[..., Server],
                                                                     tab: Tab, tmp_path: Path) -> None:
    srv = server_factory().start()
    game = srv.create(spec(), on_air=True)
    rd = Rd(srv, "Эфир")
    rd.add(segment="А", label="Заставка", graphic="slate", layer="back",
           data={"title": "Скоро начнём", "clock_label": "До начала", "countdown_ms": 300_000})
    rd.add(segment="А", label="Вопрос", graphic="question", layer="main", data={})
    slate_id, card_id = (i for _, i, _ in rd.labels())
    page = output(tab, f"{srv.url}/overlays/show")
    rd.act("take", item=slate_id)
    wait_output(page, "slate", True)
    wait_still(page, ".sl-clock")
    alone = page.eval_on_selector(".sl-clock", "el => el.getBoundingClientRect().bottom")

    srv.play(game, "spin", landed=2)
    rd.act("take", item=card_id)
    wait_revealed(page)
    wait_output(page, "question", True)
    wait_still(page, ".sl-clock, .qc-card")
    clock, card = page.evaluate("""() => ['.sl-clock', '.qc-card'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; })""")
    assert clock["bottom"] <= card["top"] - 20, (clock, card)   # the countdown is clear of the card
    assert clock["top"] >= 54                                     # and inside the safe area
    assert alone > card["top"]                                    # it would have been covered
    # the countdown's digits are drawn where the card is not: the topmost element at their centre is the clock
    assert page.evaluate("""() => { const r = document.querySelector('.sl-time').getBoundingClientRect();
        const el = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return !!el && !!el.closest('.sl-clock'); }""")
    screenshot(page, screenshot_dir(tmp_path), "slate-under-card")
    assert tab.errors == []
