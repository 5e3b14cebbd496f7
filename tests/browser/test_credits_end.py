"""A one-time credits roll (no `loop`) leaves the rundown desk's program when it leaves the air.

The output draws the roll from server time and goes out once the last name has passed; the
server knows that moment from the roll's box model (overlay/graphics/show.py `credits_roll_ms`, the
line heights of static/overlays/credits.css) and takes the layer out then, so the desk stops
listing the item as on air. Real server, real desk, real output in the system Chromium.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, expect

from overlay.graphics.show import credits_roll_ms
from tests.browser import drawn as dr
from tests.browser.helpers import Tab
from tests.browser.test_rundown import WAIT, Desk
from tests.support import Server, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROLL = {"names": ["Борис Крюк", {"name": "Анна Иванова", "role": "капитан"}, "Глеб Петров"], "speed": 400}
TRAVEL_JS = ("() => { const w = document.querySelector('[data-part=credits] .cr-window');"
             " return w.clientHeight + document.querySelector('[data-part=credits] [data-ref=roll]').offsetHeight; }")


def test_a_one_time_roll_leaves_the_desk_when_it_leaves_the_air(server_factory: Callable[..., Server],
                                                                chromium: Browser) -> None:
    srv = server_factory().start()
    rid = srv.api("POST", "/api/rundowns", {"name": "Финал"})["id"]
    srv.api("POST", f"/api/rundowns/{rid}/items", {"segment": "Конец", "label": "Титры", "graphic": "credits",
                                                    "layer": "back", "out": "manual", "data": ROLL})
    ctx = chromium.new_context(viewport={"width": 1600, "height": 1000}, locale="ru-RU")
    out = Tab(chromium)
    try:
        desk = Desk(ctx.new_page(), srv).open()
        show = out.open(f"{srv.url}/overlays/show")
        dr.prepare(show)
        srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": "take", "item": "Титры"})
        expect(desk.item("Титры")).to_have_class(re.compile(r"\bon-air\b"), timeout=WAIT)
        wait_for(lambda: dr.read(show).part_texts("credits"), timeout=10, what="the roll on the output")
        # the server's estimate of the roll is the output's own travel, never shorter
        travel = show.evaluate(TRAVEL_JS)
        estimate = credits_roll_ms(ROLL) * ROLL["speed"] / 1000
        assert travel <= estimate <= travel + 60, (travel, estimate)

        # while names roll the item is on air; once the last has gone, the desk drops it
        expect(desk.item("Титры")).not_to_have_class(re.compile(r"\bon-air\b"), timeout=WAIT)
        # the output draws its next two frames (a page stalled by a loaded machine moves its roll then)
        show.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        assert not dr.read(show).part_texts("credits"), "the desk dropped the credits while names still rolled"
        expect(desk.page.locator("#rd-program li")).to_have_text([re.compile(".+")])
        assert not desk.page.locator("#rd-program li[data-layer]").count()
        assert srv.api("GET", "/api/graphics")["layers"] == {}
    finally:
        out.close()
        ctx.close()
