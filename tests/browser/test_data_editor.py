"""The desk's item editor edits each field with its control, made from the graphic's schema
(overlay/schema; static/control/dataform.js): a show prepared in a spreadsheet is imported
through the desk; a ticker's items are edited in the list editor (a line added, moved up, one
removed), a slate's countdown typed as «2 min», a bug's logo picked from the library's
thumbnails, a strap's accent from the colour control; each saves as typed data and takes
without a refusal (the strap drawn in its accent); a duration the editor cannot
read is refused by the server in Russian, naming the field. At 1366×900, with a screenshot
(`CHGK_SCREENSHOT_DIR=docs/screenshots` keeps it as rundown-editor.png)."""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from playwright.sync_api import Browser, ConsoleMessage, expect

from tests.media.test_media_api import png, upload
from tests.browser.helpers import PanelPage, Tab, screenshot_dir
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHEET = Path(__file__).resolve().parent.parent / "fixtures" / "show" / "show.csv"
WAIT = 15_000  # ms: the machine is shared; waits only cost time when they fail
LATIN_SENTENCE = re.compile(r"[A-Za-z]{3,}(?:\s+[A-Za-z]{2,}){2,}")


class Desk(PanelPage):
    home = "/control/rundown"

    def expected(self, message: ConsoleMessage) -> bool:
        url = (message.location or {}).get("url", "")
        if "status of 400" in message.text and "/api/rundowns/" in url:
            return True  # the refused duration and the refused sheet, asserted below
        return bool(re.search(r"/(overlays/|static/(overlays|lib|themes|fonts|sounds)/)", url))

    def item(self, label: str):  # noqa: ANN201 - a Locator
        return self.page.locator(f'.rd-item[data-label="{label}"]')

    def field(self, name: str):  # noqa: ANN201
        return self.page.locator(f"#f-data [data-field='{name}']")

    def edit(self, label: str) -> None:
        self.item(label).dblclick()
        expect(self.item(label)).to_have_class(re.compile(r"\bfocused\b"), timeout=WAIT)
        expect(self.page.locator("#rd-ed-title")).to_contain_text(label)

    def save(self) -> None:
        """Save, and wait for the server's answer to the edit itself (a focus move changes the rev too)."""
        with self.page.expect_response(lambda r: "/items" in r.url and r.request.method in ("PATCH", "POST"),
                                       timeout=WAIT) as answer:
            self.page.click("#f-save")
        assert answer.value.ok, answer.value.text()

    def take(self, label: str) -> None:
        """Focus the item by a click, then Space: it goes on air (the item is marked on air)."""
        self.item(label).click()
        expect(self.item(label)).to_have_class(re.compile(r"\bfocused\b"), timeout=WAIT)
        self.page.keyboard.press(" ")
        expect(self.item(label)).to_have_class(re.compile(r"\bon-air\b"), timeout=WAIT)


class Imported(NamedTuple):
    server: Server
    rundown: str
    desk: Desk


@pytest.fixture
def imported(server_factory: Callable[..., Server], chromium: Browser) -> Iterator[Imported]:
    """A server with a logo in its library (m1), a rundown, and the desk open on it at 1366×900
    with the show's sheet imported through it (8 items)."""
    srv = server_factory().start()
    assert upload(srv, png("gold", (120, 60)), "logo.png").json()["id"] == "m1"
    rid = srv.api("POST", "/api/rundowns", {"name": "Финал лиги"})["id"]
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    try:
        desk = Desk(ctx.new_page(), srv).open()
        expect(desk.page.locator("#rd-select")).to_have_value(rid, timeout=WAIT)
        desk.page.set_input_files("#rd-import", str(SHEET))
        expect(desk.notice("imported")).to_contain_text("8", timeout=WAIT)
        expect(desk.page.locator(".rd-item")).to_have_count(8)
        yield Imported(srv, rid, desk)
    finally:
        ctx.close()


def test_the_editor_edits_each_type_and_the_items_take(imported: Imported, tab: Tab, tmp_path: Path) -> None:
    srv, rid, desk = imported
    page = desk.page
    # the import's help says how to write lists in a cell, in the page's language
    page.click(".rd-csv-help summary")
    expect(page.locator(".rd-csv-help p")).to_contain_text("Список — в одной ячейке через «|»")
    page.screenshot(path=str(tmp_path / "rundown-csv-help.png"))  # looked at, not kept
    page.click(".rd-csv-help summary")

    # the ticker's items: one editable line each; add one, move it up, remove the first
    desk.edit("Бегущая строка")
    lines = desk.field("items").locator(".df-line input")
    expect(lines).to_have_count(3)
    expect(lines.nth(2)).to_have_value("Вопросы присылайте на сайт; лучшие — в эфире")
    expect(desk.field("speed").locator("input")).to_have_attribute("type", "number")
    desk.field("items").locator("[data-add='items']").click()
    lines.nth(3).fill("Четвёртая | с чертой")
    desk.field("items").locator(".df-line").nth(3).get_by_role("button", name="Строку выше").click()
    desk.field("items").locator(".df-line").nth(0).get_by_role("button", name="Убрать строку").click()
    expect(lines).to_have_count(3)
    desk.save()
    ticker = _item(srv, rid, "Бегущая строка")
    assert ticker["data"]["items"] == ["Следующая игра — 12 декабря", "Четвёртая | с чертой",
                                       "Вопросы присылайте на сайт; лучшие — в эфире"]
    assert ticker["data"]["speed"] == 90

    # the slate's countdown, typed the way an operator says it
    desk.edit("Перерыв")
    countdown = desk.field("countdown_ms").locator("input")
    expect(countdown).to_have_value("1:30")
    expect(desk.field("kind").locator("select")).to_have_value("break")
    # a choice reads as words of the panel's language, its value stays the schema's
    assert desk.field("kind").locator("select option:checked").inner_text() == "перерыв"
    assert desk.field("kind").locator("select option").all_inner_texts()[1:] == [
        "перерыв", "скоро начнём", "раунд", "текст"]
    countdown.fill("2 min")
    desk.field("count_up").locator("input[type=checkbox]").wait_for()
    desk.save()
    assert _item(srv, rid, "Перерыв")["data"] == {"kind": "break", "countdown_ms": 120_000}

    # the bug's logo: picked from the library's thumbnails
    desk.edit("Логотип")
    expect(desk.field("media").locator("input")).to_have_value("m1")
    desk.field("media").locator("input").fill("")
    desk.field("media").locator("[data-pick='media']").click()
    picture = desk.field("media").locator(".df-picture[data-id='m1']")
    expect(picture.locator("img")).to_have_js_property("complete", True, timeout=WAIT)
    assert picture.locator("img").evaluate("img => img.naturalWidth") > 0
    picture.scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "rundown-media-picker.png"))  # looked at, not kept
    picture.click()
    expect(desk.field("media").locator("input")).to_have_value("m1")
    expect(desk.field("media").locator(".df-thumb")).to_be_visible()
    desk.save()

    # the host's strap: an accent colour from the colour control
    desk.edit("Ведущий")
    expect(desk.field("kind").locator("select")).to_have_value("host")
    desk.field("accent").locator("input[type=color]").fill("#2e8b57")
    desk.save()
    assert _item(srv, rid, "Ведущий")["data"]["accent"] == "#2e8b57"

    # each edited item takes without a refusal; the ticker's new items are what goes on air
    strap = tab.open(f"{srv.url}/overlays/lower-third")
    for label in ("Бегущая строка", "Перерыв", "Логотип", "Ведущий"):
        desk.take(label)
    expect(page.locator(".notice-error")).to_have_count(0)
    layers = srv.api("GET", "/api/graphics")["layers"]
    assert layers["crawl"]["data"]["items"][1] == "Четвёртая | с чертой"
    assert layers["bg"]["data"]["countdown_ms"] == 120_000  # its clock set in server time at take:
    assert 0 <= layers["bg"]["data"]["ends_at"] - layers["bg"]["shown_at"] - 120_000 < 1000
    assert layers["bug"]["media"]["m1"].startswith("/media/")
    subtitle = strap.locator("[data-ref='subtitle']")
    expect(subtitle).to_have_text("ведущий", timeout=WAIT)
    expect(subtitle).to_have_css("color", "rgb(46, 139, 87)")

    # what the editor cannot read goes as typed: the server refuses it in Russian, naming the field
    desk.edit("Перерыв")
    desk.field("countdown_ms").locator("input").fill("пять минут")
    page.click("#f-save")
    refusal = page.locator(".notice-error")
    expect(refusal).to_contain_text("Обратный отсчёт", timeout=WAIT)
    expect(refusal).to_contain_text("длительность от 0:01 до 24:00:00")
    assert not LATIN_SENTENCE.search(refusal.inner_text()), refusal.inner_text()
    assert _item(srv, rid, "Перерыв")["data"]["countdown_ms"] == 120_000

    # a spreadsheet with a bad cell: refused at import, its row, column and words in Russian
    bad = tmp_path / "bad.csv"
    bad.write_text(SHEET.read_text(encoding="utf-8-sig").replace(";5:00;", ";пять минут;"), encoding="utf-8")
    page.set_input_files("#rd-import", str(bad))
    refusal = page.locator(".notice-error[data-code='bad_csv']")
    expect(refusal).to_contain_text("data.countdown_ms", timeout=WAIT)
    expect(refusal).to_contain_text("«Обратный отсчёт»: длительность от 0:01 до 24:00:00")
    assert not LATIN_SENTENCE.search(refusal.inner_text()), refusal.inner_text()
    expect(page.locator(".rd-item")).to_have_count(8)  # nothing imported, nothing replaced

    # the screenshot: the ticker in the editor, the program beside it
    desk.edit("Бегущая строка")
    page.locator(".notice-close").first.click()
    page.screenshot(path=str(screenshot_dir(tmp_path) / "rundown-editor.png"))
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert desk.errors == [] and tab.errors == []


def test_a_sheet_chosen_while_the_rundown_loads_goes_into_it_and_without_one_the_desk_says_so(
        server_factory: Callable[..., Server], chromium: Browser) -> None:
    """A CI run chose the sheet after the list had named the rundown but before the rundown itself
    had come: the desk dropped the file without a word."""
    srv = server_factory().start()
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    try:
        desk = Desk(ctx.new_page(), srv).open()  # no rundown yet
        desk.page.set_input_files("#rd-import", str(SHEET))
        desk.saw_notice("import_where", text="Сначала создайте или выберите сценарий")
        assert srv.api("GET", "/api/rundowns")["rundowns"] == []

        desk.page.close()
        rid = srv.api("POST", "/api/rundowns", {"name": "Финал лиги"})["id"]
        held: list = []  # this page's GET of the rundown, held back until the sheet is chosen
        page = ctx.new_page()
        page.route(f"**/api/rundowns/{rid}", lambda route: held.append(route))
        desk = Desk(page, srv).open()
        expect(page.locator("#rd-select")).to_have_value(rid, timeout=WAIT)
        page.wait_for_function("() => true")  # the route's callback runs while Playwright is called
        assert len(held) == 1, f"{len(held)} GETs of the rundown held"
        page.set_input_files("#rd-import", str(SHEET))
        held[0].continue_()
        expect(desk.notice("imported")).to_contain_text("8", timeout=WAIT)
        expect(page.locator(".rd-item")).to_have_count(8)
        assert len(srv.api("GET", f"/api/rundowns/{rid}")["segments"]) > 0
    finally:
        ctx.close()


def _item(srv: Server, rid: str, label: str) -> dict:
    doc = srv.api("GET", f"/api/rundowns/{rid}")
    return next(i for s in doc["segments"] for i in s["items"] if i["label"] == label)


def test_a_save_pressed_while_the_focus_move_is_on_its_way_goes_after_it(imported: Imported) -> None:
    """The double click that opens an item also moves the focus (a new rev). A save pressed before
    that answer is back goes after it, with the rev it made: not refused as stale (a loaded run of
    session 16 answered the test above with «stale_rundown»)."""
    srv, rid, desk = imported
    page = desk.page
    # the desk's actions (the focus moves) reach the server 800 ms late, as on a loaded machine
    page.evaluate("""() => {
      const real = window.fetch;
      window.fetch = async (url, init) => {
        if (String(url).includes('/actions')) await new Promise((ok) => setTimeout(ok, 800));
        return real(url, init);
      };
    }""")
    rev = srv.api("GET", f"/api/rundowns/{rid}")["rev"]
    desk.item("Ведущий").dblclick()
    expect(page.locator("#rd-ed-title")).to_contain_text("Ведущий")
    desk.field("accent").locator("input[type=color]").fill("#2e8b57")
    desk.save()
    assert _item(srv, rid, "Ведущий")["data"]["accent"] == "#2e8b57"
    assert srv.api("GET", f"/api/rundowns/{rid}")["rev"] > rev + 1  # the focus moved, then the edit
    expect(page.locator(".notice-error")).to_have_count(0)
