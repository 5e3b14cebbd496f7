"""The rundown desk in the real system Chromium against a real server process: a whole prepared
show run from the keyboard — a CSV imported through the panel, items taken in order with Space,
cued items taken together (C, T), an edit put on air in place (Enter, F5),
a question card in steps, a strap that goes out by itself with its countdown on the item, Esc
clearing every layer, a locked rundown refusing edits — with program outputs filtered by layer
(`?layers=`) and a preview output (`?preview=1`) that shows the focused item while program stays
as it is. The desk's screenshot (docs/screenshots/rundown.png) is taken here too
(`CHGK_SCREENSHOT_DIR=docs/screenshots python -m pytest tests/browser/test_rundown.py`).
"""
from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from control.pages import DOUBLE_MS
from tests.browser.helpers import WAIT_MS, PanelPage, Tab, screenshot_dir
from tests.support import TOKEN, Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOW_CSV = """segment,label,graphic,layer,out,data.title,data.subtitle
Начало,Ведущий,lower-third,straps,manual,Борис Крюк,ведущий
Начало,Капитан,lower-third,straps,4000,{{captain}},капитан команды {{experts}}
Раунд 1,Вопрос,question,12,manual,,
Финал,Итог,result,full,manual,,
"""
WAIT = 15_000  # ms: the machine is shared; waits only cost time when they fail



class Desk(PanelPage):
    home = "/control/rundown"
    pressed: dict[str, float]

    def __init__(self, page: Page, server: Server) -> None:
        super().__init__(page, server)
        self.pressed = {}

    def expected(self, message: ConsoleMessage) -> bool:
        """The preview and program monitors are overlay pages in iframes, tested on their own."""
        url = (message.location or {}).get("url", "")
        if "status of 422" in message.text and "/api/rundowns/" in url:
            return True  # the refused edit of the locked rundown, asserted below
        return bool(re.search(r"/(overlays/|static/(overlays|lib|themes|fonts|sounds)/)", url))

    def open(self, path: str | None = None) -> "Desk":
        """As PanelPage.open, with a wait that a loaded machine does not fail."""
        self.page.goto(self.server.url + (path or self.home))
        if self.page.locator("input[name=password]").count():
            self.page.fill("input[name=password]", self.server.password)
            self.page.click("button[type=submit]")
        expect(self.page.locator("body")).to_have_attribute("data-connection", "connected", timeout=WAIT)
        return self

    def item(self, label: str):  # noqa: ANN201 - a Locator
        return self.page.locator(f'.rd-item[data-label="{label}"]')

    def press(self, key: str) -> None:
        """One key, then wait until the server's answer (a new rev) is on the desk. The same key
        is pressed again no sooner than an operator meaning it would: within DOUBLE_MS the desk
        takes it for a doubled press (tests/browser/test_desk_presses.py). Counted from when the
        desk showed the last one's answer: the page took that key before then, however late a
        loaded machine delivered it (counted from the send, two keys could reach it closer)."""
        since = time.monotonic() - self.pressed.get(key, -1e9)
        if since < DOUBLE_MS / 1000:
            self.page.wait_for_timeout(DOUBLE_MS - since * 1000 + 50)  # the operator's pace, not a wait for a result
        # a rundown on the desk first: a key before it is loaded does nothing, and the load itself
        # would pass for this key's answer (run V: Space then took with nothing focused)
        self.page.wait_for_function("() => !!document.body?.dataset.rundownRev", timeout=WAIT)
        before = self.page.get_attribute("body", "data-rundown-rev")
        self.page.keyboard.press(key)
        self.page.wait_for_function("r => document.body?.dataset.rundownRev !== r", arg=before, timeout=WAIT)
        self.pressed[key] = time.monotonic()


def output(tab: Tab, url: str) -> Page:
    """An overlay page, ready and live, with this module's longer wait (a loaded machine does not fail it)."""
    return tab.open(url, WAIT)


def on_output(page: Page, part: str) -> bool:
    return page.evaluate("p => { const el = document.querySelector(`[data-part='${p}']`);"
                         " return !!el && el.classList.contains('is-in') && !el.classList.contains('layer-off')"
                         " && !el.classList.contains('op-hidden'); }", part)


def wait_output(page: Page, part: str, on: bool) -> None:
    page.wait_for_function(
        "([p, on]) => { const el = document.querySelector(`[data-part='${p}']`);"
        " const shown = !!el && el.classList.contains('is-in') && !el.classList.contains('layer-off')"
        " && !el.classList.contains('op-hidden'); return shown === on; }", arg=[part, on], timeout=WAIT)


def test_a_prepared_show_from_the_keyboard(server_factory: Callable[..., Server], chromium: Browser,
                                           tmp_path: Path) -> None:
    srv = server_factory().start()
    rid = srv.api("POST", "/api/rundowns", {"name": "Эфир 1 декабря"})["id"]
    csv_file = tmp_path / "show.csv"
    csv_file.write_text(SHOW_CSV, encoding="utf-8")

    ctx = chromium.new_context(viewport={"width": 1600, "height": 1000}, locale="ru-RU")
    straps, cards, every, preview = (Tab(chromium) for _ in range(4))
    expect.set_options(timeout=WAIT)  # a loaded machine; waits only cost time when they fail
    try:
        desk = Desk(ctx.new_page(), srv).open()
        straps_page = output(straps, f"{srv.url}/overlays/show?layers=straps")
        cards_page = output(cards, f"{srv.url}/overlays/show?layers=1")  # "1" must never match layer "12"
        every_page = output(every, f"{srv.url}/overlays/show")
        preview_page = output(preview, f"{srv.url}/overlays/show?preview=1#token={TOKEN}")  # as OBS
        page = desk.page

        # import the show prepared in a spreadsheet
        page.set_input_files("#rd-import", str(csv_file))
        expect(desk.item("Итог")).to_be_visible(timeout=WAIT)
        expect(page.locator(".rd-item")).to_have_count(4)
        expect(page.locator(".rd-seg-name")).to_have_text(["Начало", "Раунд 1", "Финал"])

        # ↓ focuses the first item: preview shows it, program does not
        desk.press("ArrowDown")
        expect(desk.item("Ведущий")).to_have_class(re.compile(r"\bfocused\b"))
        wait_output(preview_page, "lower-third", True)
        expect(preview_page.locator("[data-part='lower-third'] [data-ref='title']")).to_have_text("Борис Крюк")
        assert not on_output(straps_page, "lower-third") and not on_output(every_page, "lower-third")

        # Space takes it; Space again takes it out
        desk.press(" ")
        wait_output(straps_page, "lower-third", True)
        expect(straps_page.locator("[data-part='lower-third'] [data-ref='title']")).to_have_text("Борис Крюк")
        expect(desk.item("Ведущий")).to_have_class(re.compile(r"\bon-air\b"))
        assert not on_output(cards_page, "lower-third")  # layer "1" only
        desk.press(" ")
        wait_output(straps_page, "lower-third", False)

        # the captain's strap: filled from the game at take time, out by itself, counting down
        desk.press("ArrowDown")
        desk.press(" ")
        wait_output(straps_page, "lower-third", True)
        expect(straps_page.locator("[data-part='lower-third'] [data-ref='title']")).to_have_text("Анна")
        expect(desk.item("Капитан").locator(".rd-count")).to_have_text(re.compile(r"^[1-4] с$"))
        # looked at five times a second, written only when the second changes: never the same text again
        rewrites = desk.item("Капитан").locator(".rd-count").evaluate("""el => new Promise((done) => { let n = 0;
            const watch = new MutationObserver((records) => { for (const r of records)
              if ([...r.removedNodes].map(x => x.data).join() === [...r.addedNodes].map(x => x.data).join()) n++; });
            watch.observe(el, {childList: true});
            setTimeout(() => { watch.disconnect(); done(n); }, 1000); })""")
        assert rewrites == 0, rewrites
        wait_output(straps_page, "lower-third", False)
        expect(desk.item("Капитан")).not_to_have_class(re.compile(r"\bon-air\b"), timeout=WAIT)
        desk.saw_notice("rundown_done", timeout_ms=WAIT)

        # the question card, on layer 12: on the all-layers output, never on "?layers=1"
        srv.play("g1", "spin", landed=3)
        desk.press("ArrowDown")
        desk.press(" ")
        wait_output(every_page, "question", True)
        assert not on_output(cards_page, "question")
        assert not on_output(straps_page, "question")
        # in steps: the card first (sector, viewer, prize), Space again for the text
        card = every_page.locator("[data-part='question']")
        expect(card).to_have_class(re.compile(r"\bno-text\b"))
        desk.press(" ")
        expect(card).not_to_have_class(re.compile(r"\bno-text\b"), timeout=WAIT)

        # preview follows focus, program stays: focus the result, nothing new on air
        desk.press("ArrowDown")
        wait_output(preview_page, "result", True)
        wait_output(preview_page, "question", False)
        assert on_output(every_page, "question") and not on_output(every_page, "result")

        out_dir = screenshot_dir(tmp_path)
        page.screenshot(path=str(out_dir / "rundown.png"), full_page=True)

        # Esc takes every layer of the rundown out
        desk.press("Escape")
        wait_output(every_page, "question", False)
        expect(page.locator(".rd-item.on-air")).to_have_count(0)

        # cue two items (C), take them together (T); then Esc
        for _ in range(3):
            desk.press("ArrowUp")
        expect(desk.item("Ведущий")).to_have_class(re.compile(r"\bfocused\b"))
        desk.press("c")
        desk.press("ArrowDown")
        desk.press("ArrowDown")
        desk.press("c")
        expect(page.locator(".rd-item.cued")).to_have_count(2)
        desk.press("t")
        wait_output(straps_page, "lower-third", True)
        wait_output(every_page, "question", True)
        expect(page.locator(".rd-item.cued")).to_have_count(0)
        desk.press("Escape")
        wait_output(straps_page, "lower-third", False)

        # Enter edits the focused item; F5 puts the edit on air in place
        desk.press("ArrowUp")
        desk.press("ArrowUp")
        desk.press(" ")
        wait_output(straps_page, "lower-third", True)
        page.keyboard.press("Enter")
        field = lambda name: page.locator(f"#f-data [data-field='{name}'] :is(input, select, textarea)").first
        expect(field("title")).to_have_value("Борис Крюк")
        field("subtitle").fill("ведущий вечера")
        page.click("#f-save")
        desk.saw_notice("ok", timeout_ms=WAIT)
        assert straps_page.locator("[data-part='lower-third'] [data-ref='subtitle']").text_content() == "ведущий"
        desk.press("F5")
        expect(straps_page.locator("[data-part='lower-third'] [data-ref='subtitle']")).to_have_text("ведущий вечера",
                                                                                                    timeout=WAIT)
        desk.press("Escape")
        wait_output(straps_page, "lower-third", False)

        # people from a spreadsheet: a click fills a strap item, saved into the last segment
        people = tmp_path / "people.csv"
        people.write_text("name,title,photo\nИрина Коваль,эксперт,irina.png\n", encoding="utf-8")
        page.set_input_files("#rd-people-import", str(people))
        page.click("[data-person='Ирина Коваль']")
        assert [field(f).input_value() for f in ("title", "subtitle", "style", "photo")] == \
            ["Ирина Коваль", "эксперт", "photo", "irina.png"]
        page.click("#f-save")
        expect(desk.item("Ирина Коваль")).to_be_visible()
        page.locator("#f-label").blur()

        # locked: edits refused (422, the panel says so), taking still works
        page.click("#rd-lock")
        expect(page.locator("#rd-lock")).to_have_attribute("aria-pressed", "true", timeout=WAIT)
        page.keyboard.press("Enter")
        page.fill("#f-label", "Новая метка")
        page.click("#f-save")
        expect(desk.notice("locked")).to_be_visible(timeout=WAIT)
        assert srv.call("PATCH", f"/api/rundowns/{rid}/items/{_id(srv, rid, 'Вопрос')}",
                        {"label": "x"}).status_code == 422
        page.locator("#f-label").blur()
        expect(desk.item("Ведущий")).to_be_visible()
        desk.press(" ")  # taking still works while locked
        wait_output(straps_page, "lower-third", True)
        assert desk.errors == []
        for tab in (straps, cards, every, preview):
            assert tab.errors == [], tab.errors
    finally:
        expect.set_options(timeout=WAIT_MS)  # the suite's bound (tests/browser/conftest.py), for the other modules
        ctx.close()
        for tab in (straps, cards, every, preview):
            tab.close()


def _id(srv: Server, rid: str, label: str) -> str:
    doc = srv.api("GET", f"/api/rundowns/{rid}")
    return next(i["id"] for s in doc["segments"] for i in s["items"] if i["label"] == label)
