"""Every refusal in the panel's language: the pseudo-locale sweep (test_pseudo_locale.py) with the
refusals provoked. With the server's language set to `qps` every catalog word reads «[Àççéñţéð]»,
so a refusal that shows the server's English detail (or any word not from the catalogs) leaves
letters outside the brackets. In Chromium at 1366×900: rule refusals on the live panel (the
hotkeys ask the server even while a button is disabled) and on the club screen, the desk's
(nothing cued, nothing focused, locked, a bad CSV file), the media library's (a file that is not a
picture, a picture in use). After each one the whole page is checked, and the refusal itself must
have said something: its notice (or result line) is there with its code, and the server's English
is kept for a developer in data-detail."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect

from overlay.i18n import PSEUDO
from tests.media.test_media_api import png
from tests.browser.helpers import PanelPage, settle
from tests.browser.test_panel_club import club_spec
from tests.i18n.test_pseudo_locale import COLLECT, bypassing, game_data
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EXE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00" + b"\0" * 500
BAD_CSV = "segment,label,graphic,layer,out,colour\nНачало,Ведущий,lower-third,straps,manual,red\n"
LATIN_WORDS = re.compile(r"[A-Za-z]{3,}")


class Panel(PanelPage):
    def expected(self, message: ConsoleMessage) -> bool:
        # a refused call is a 4xx the browser logs; the page says it (the point of this test)
        return "status of 4" in message.text


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("qps-refusals") / "data", mode="threading",
                 env={"CHGK_OVERLAY_PSEUDO_LOCALE": "true", "CHGK_OVERLAY_LANGUAGE": PSEUDO}).start()
    yield srv
    srv.stop()


@pytest.fixture
def panel(chromium: Browser, server: Server) -> Iterator[Panel]:
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="en-GB")
    p = Panel(ctx.new_page(), server)
    yield p
    ctx.close()
    assert p.errors == [], p.errors


def said(page: Page, where: str, code: str, data: set[str]) -> dict:
    """The refusal `code` is on the page (a notice or `where`), in catalog words only: returns
    the page's problems (empty) after checking that it said something."""
    shown = page.locator(f'{where}[data-code="{code}"]').first
    expect(shown).to_be_visible()
    text = shown.inner_text()
    assert text.strip().startswith("[") or "[" in text, (code, text)
    settle(page)
    return {code: bad} if (bad := bypassing(page.evaluate(COLLECT), data)) else {}


def press(page: Page, key: str, code: str, data: set[str]) -> dict:
    page.keyboard.press(key)
    problems = said(page, ".notice", code, data)
    detail = page.locator(f'.notice[data-code="{code}"]').get_attribute("data-detail") or ""
    assert LATIN_WORDS.search(detail), (code, detail)   # the developer's words are kept, not shown
    return problems


def test_every_refusal_reads_in_the_panels_language(panel: Panel, server: Server) -> None:
    page = panel.page
    problems: dict[str, list[str]] = {}

    # the live panel: a tv game with the minute running
    tv = server.create({"rules": "tv", "title": "Телеигра", "target": 6,
                        "experts": {"name": "Знатоки клуба", "players": ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]},
                        "timers": {"minute": 600_000}}, on_air=True)
    server.play(tv, "spin", landed=3)
    server.play(tv, "start_timer")
    panel.open("/control/")
    panel.wait_rev(2, tv)
    data = game_data(server)
    for key, code in (("e", "wrong_phase"), ("m", "extra_minute_unavailable"), ("d", "round_in_progress")):
        problems |= press(page, key, code, data)

    # the club screen: no team at the Central Table, the top cannot spin
    club = server.create(club_spec(day="2026-12-02-wed"), on_air=True)
    panel.open("/control/club")
    panel.wait_rev(0, club)
    problems |= press(page, "w", "central_table_empty", game_data(server))
    expect(page.locator('[data-badge="game_day"]')).to_contain_text("Wed")  # the game day as a date, not its id

    # the desk: nothing cued, nothing focused, a bad CSV file, a locked rundown's edit
    made = server.api("POST", "/api/rundowns", {"name": "Шоу"})
    rid = made["id"]
    server.api("POST", f"/api/rundowns/{rid}/items",
               {"segment": "Начало", "label": "Ведущий", "graphic": "lower-third", "layer": "straps",
                "data": {"title": "Борис Крюк"}, "expected_rev": made["rev"]})
    page.goto(server.url + "/control/rundown")
    expect(page.locator("body")).to_have_attribute("data-connection", "connected")
    expect(page.locator('.rd-item[data-label="Ведущий"]')).to_be_visible()
    data = game_data(server) | {"Шоу", "Ведущий", "Начало", "straps", "red", "colour"}
    problems |= press(page, "t", "nothing_cued", data)
    problems |= press(page, "F5", "no_focus", data)
    page.set_input_files("#rd-import", files=[{"name": "show.csv", "mimeType": "text/csv", "buffer": BAD_CSV.encode()}])
    problems |= said(page, ".notice", "bad_csv", data)
    rev = server.api("GET", f"/api/rundowns/{rid}")["rev"]
    server.api("POST", f"/api/rundowns/{rid}/actions", {"action": "lock", "expected_rev": rev})
    expect(page.locator("body")).to_have_class(re.compile(r"\brd-locked\b"))
    item = page.locator('.rd-item[data-label="Ведущий"]')
    item.click()
    expect(item).to_have_class(re.compile(r"\bfocused\b"))
    page.keyboard.press("Enter")                       # the editor, as the desk's Enter opens it
    expect(page.locator("#f-label")).to_have_value("Ведущий")
    page.click("#f-save")
    problems |= said(page, ".notice", "locked", data)

    # the media library: a program instead of a picture; a picture in use deleted
    page.goto(server.url + "/control/media")
    expect(page.locator("body")).to_have_attribute("data-connection", "connected")
    page.set_input_files("#media-file", files=[{"name": "setup.exe", "mimeType": "application/octet-stream", "buffer": EXE}])
    data = game_data(server) | {"setup.exe", "logo.png", "EXE", "PNG"}  # file names, formats
    problems |= said(page, ".notice", "unsupported_media_type", data)
    expect(page.locator(".media-result")).to_contain_text("EXE")         # the reason names what it is
    page.set_input_files("#media-file", files=[{"name": "logo.png", "mimeType": "image/png", "buffer": png()}])
    card = page.locator(".media-card").first
    expect(card).to_be_visible()
    card.locator('button[data-action="bug"]').click()
    expect(page.locator(".media-result [data-kind=ok]")).to_be_visible()
    page.on("dialog", lambda d: d.accept())
    card.locator('button[data-action="delete"]').click()
    problems |= said(page, ".notice", "media_in_use", data)
    assert problems == {}, problems
