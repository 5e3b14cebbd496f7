"""Issue 22 (the drawn-truth oracle): on the rundown's output `/overlays/show`, the table («Стол»)
and the question card on air at once — different layers, one stacking level — drew the table's
full-size disc under the card: sectors 7 and 8 and the caption «Сектор N» were hidden. Read from
what Chromium DRAWS (tests/browser/drawn.py: elementsFromPoint at every text): with both taken
from a rundown, every sector number, the table's caption and every text of the card (at its
`card` and `text` steps) is drawn uncovered, no text of one crosses the other, all inside the
title-safe area; the table alone keeps its full-size disc before and after.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.browser import drawn as dr
from tests.browser.helpers import WAIT_MS, Tab, screenshot, screenshot_dir, settle
from tests.browser.test_drawn_truth import spec
from tests.browser.test_show_stacking import wait_parts
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECTOR = 8  # a regular sector of spec(): one question, a plain caption


def disc_width(page: Page) -> float:
    return page.eval_on_selector("[data-part='table'] .tb-disc", "e => e.getBoundingClientRect().width")


def both_drawn(d: dr.Drawn, sectors: int, card_on: bool = True) -> list[str]:
    """Everything wrong with the table (and the card, when `card_on`) as drawn."""
    problems = []
    table = [t for t in d.texts if t.part == "table"]
    shown_numbers = {t.text for t in table if t.shown and t.text.isdigit()}
    problems += [f"sector {n} not drawn: {next((t.why for t in table if t.text == str(n)), 'no text')}"
                 for n in range(1, sectors + 1) if str(n) not in shown_numbers]
    caption = f"Сектор {SECTOR}"
    if d.ref_text("table", "cap-sector") != caption:
        problems.append(f"the table's caption «{caption}» not drawn: "
                        f"{[(t.text, t.why) for t in table if t.ref == 'cap-sector']}")
    card = [t for t in d.texts if t.part == "question"]
    problems += [f"card text {t} not drawn: {t.why}" for t in card if t.why.startswith("covered")]
    problems += [f"table text {t} not drawn: {t.why}" for t in table if t.why.startswith("covered")]
    if card_on and d.ref_text("question", "sector") != caption:
        problems.append(f"the card's head «{caption}» not drawn: {[(t.text, t.why) for t in card if t.ref == 'sector']}")
    both = dr.Drawn([t for t in d.texts if t.part in ("table", "question")])
    problems += dr.overlaps(both) + dr.outside_safe(both)
    return problems


def test_table_and_card_on_the_show_output_are_drawn_side_by_side(
        server_factory: Callable[..., Server], chromium: Browser, tmp_path: Path) -> None:
    srv = server_factory().start()
    game_spec = spec()
    game = srv.create(game_spec, on_air=True)
    rid = srv.api("POST", "/api/rundowns", {"name": "Стол и карточка"})["id"]
    for body in ({"label": "Стол", "graphic": "table", "layer": "table"},
                 {"label": "Карточка", "graphic": "question", "layer": "card"}):
        srv.api("POST", f"/api/rundowns/{rid}/items", body)

    def act(action: str, item: str) -> None:
        srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": action, "item": item})

    tab = Tab(chromium)
    try:
        page = tab.open(f"{srv.url}/overlays/show")
        dr.prepare(page)
        state = srv.play(game, "spin", landed=SECTOR)
        reveal = state["round"].get("reveal_at")
        act("take", "Стол")
        wait_parts(page, ["table"], off=("question",))
        if isinstance(reveal, (int, float)):
            page.wait_for_function("at => document.body?.dataset.revealed === String(at)", arg=reveal, timeout=WAIT_MS)
        page.wait_for_selector("[data-part='table'] [data-ref='caption'].on", timeout=WAIT_MS)
        settle(page)
        # the table alone: the full-size disc of the spin moment, as before
        assert disc_width(page) == pytest.approx(820, abs=1)
        assert both_drawn(dr.read(page), len(game_spec["sectors"]), card_on=False) == []

        act("take", "Карточка")
        wait_parts(page, ["table", "question"])
        found = both_drawn(dr.read(page), len(game_spec["sectors"]))
        screenshot(page, screenshot_dir(tmp_path), "show-table-and-card")
        assert found == [], "\n".join(found)

        # the card's next step (the question's text): the card grows, still clear of the table
        act("continue", "Карточка")
        page.wait_for_function("() => (document.querySelector(\"[data-part='question'] [data-ref='text']\")"
                               ".textContent || '').trim() !== ''", timeout=WAIT_MS)
        settle(page)
        d = dr.read(page)
        assert d.ref_text("question", "text"), [(t.text, t.why) for t in d.texts if t.part == "question"]
        found = both_drawn(d, len(game_spec["sectors"]))
        screenshot(page, screenshot_dir(tmp_path), "show-table-and-card-text")
        assert found == [], "\n".join(found)

        # the card out: the table alone again, full size
        act("out", "Карточка")
        wait_parts(page, ["table"], off=("question",))
        page.wait_for_function("() => !document.getElementById('stage').classList.contains('fit-table-card')"
                               " && document.querySelector(\"[data-part='table'] .tb-disc\")"
                               ".getBoundingClientRect().width > 819", timeout=WAIT_MS)
        assert both_drawn(dr.read(page), len(game_spec["sectors"]), card_on=False) == []
        assert tab.errors == [], tab.errors
    finally:
        tab.close()
