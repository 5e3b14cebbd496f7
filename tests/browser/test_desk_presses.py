"""One press counts once on the rundown desk, as on the live panel: Space pressed twice 80 ms
apart (a bounce, a nervous thumb) takes the strap once — the second press goes with the first
one's rev, the server refuses it, the desk says so once — and the output never loses the strap.
↓↓ at any pace moves the focus twice: moving the focus changes nothing on air."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
import socketio
from playwright.sync_api import Browser, ConsoleMessage, expect

from tests.browser.helpers import press_twice
from tests.browser.test_rundown import WAIT, Desk
from tests.support import Server, close_client, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

class DoubledDesk(Desk):
    def expected(self, message: ConsoleMessage) -> bool:
        """The doubled press's 409 is the server refusing it, as it must; Chromium logs it."""
        url = (message.location or {}).get("url", "")
        return ("status of 409" in message.text and url.endswith("/actions")) or super().expected(message)


STRAP = {"segment": "Начало", "label": "Ведущий", "graphic": "lower-third", "layer": "straps", "out": "manual",
         "data": {"title": "Борис Крюк", "subtitle": "ведущий"}}


@pytest.fixture
def straps_seen(server_factory: Callable[..., Server]) -> Iterator[tuple[Server, list[bool]]]:
    """A server, and whether the straps layer was on air in each `graphics` message an overlay got."""
    srv = server_factory().start()
    seen: list[bool] = []
    watcher = socketio.Client(reconnection=False)
    watcher.on("graphics", lambda msg: seen.append("straps" in (msg or {}).get("layers", {})), namespace="/overlay")
    watcher.connect(srv.url, namespaces=["/overlay"], transports=["websocket"], wait_timeout=20)
    yield srv, seen
    close_client(watcher)


def test_a_doubled_space_takes_the_strap_once(straps_seen: tuple[Server, list[bool]], chromium: Browser) -> None:
    srv, seen = straps_seen
    rid = srv.api("POST", "/api/rundowns", {"name": "Эфир"})["id"]
    first = srv.api("POST", f"/api/rundowns/{rid}/items", STRAP)["id"]
    srv.api("POST", f"/api/rundowns/{rid}/items", {**STRAP, "label": "Гость", "data": {"title": "Гость"}})
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    expect.set_options(timeout=WAIT)
    try:
        desk = DoubledDesk(ctx.new_page(), srv).open()
        page = desk.page
        expect(desk.item("Ведущий")).to_be_visible()

        # ↓↓ quickly: two moves (focus is not guarded), then ↑ back to the first item
        page.keyboard.press("ArrowDown")
        page.wait_for_timeout(80)  # the operator's pace between the two presses: the thing under test
        page.keyboard.press("ArrowDown")
        expect(desk.item("Гость")).to_have_class(re.compile(r"\bfocused\b"))
        desk.press("ArrowUp")
        expect(desk.item("Ведущий")).to_have_class(re.compile(r"\bfocused\b"))
        rev = srv.api("GET", f"/api/rundowns/{rid}")["rev"]

        # a doubled press, 80 ms apart by the keys' own clock, the second handled 600 ms after the
        # first (a page busy drawing, a loaded machine): still one press
        press_twice(page, " ", "Space", 32, apart_ms=80, late_ms=600)
        expect(desk.notice("double_press")).to_have_count(1)
        expect(desk.notice("double_press")).to_contain_text("выполнено один раз")
        expect(page.locator(".notice[data-kind=error]")).to_have_count(0)
        doc = srv.api("GET", f"/api/rundowns/{rid}")
        assert doc["rev"] == rev + 1, (rev, doc["rev"])  # one take, nothing else
        assert doc["program"]["straps"]["item"] == first
        expect(desk.item("Ведущий")).to_have_class(re.compile(r"\bon-air\b"))
        # every overlay saw the strap go on and never come off
        wait_for(lambda: True in seen, what="the strap in an overlay's graphics")  # another socket, its own pace
        assert not seen[seen.index(True):].count(False), seen

        assert not desk.errors, desk.errors
    finally:
        ctx.close()
