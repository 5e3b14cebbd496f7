"""The desk, the panel and the audience page in their own words, at 1366×900, in the system
Chromium against a real server (issue 24's smaller items): the desk's edit buttons (segments'
✎▲▼2× and rows') disabled while the rundown is locked, its versions, graphic names and out modes
as words; «Логотипом в эфир» confirmed in the media library's result line, replacing an earlier
refusal there; /live naming the club team at the Central Table and marking the sector being
played; the end-of-game line without a capital mid-sentence; the undo confirmation and the club
screen's candidates with «Посадить» in 1366×900 without scrolling, in Russian, Ukrainian and
English (scrollHeight measured)."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, expect

from tests.media.test_media_api import png
from tests.browser.helpers import PanelPage, wait_revealed
from tests.browser.test_panel_club import club_spec
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCROLL_HEIGHT = "document.documentElement.scrollHeight"
LANGS = ("ru", "uk", "en")
EXE = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00" + b"\0" * 500


def tv_spec(target: int = 6) -> dict:
    return {"rules": "tv", "title": "Телеигра", "target": target, "timers": {"minute": 600_000},
            "experts": {"name": "Команда Иванова", "players": ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]}}


class Page1366(PanelPage):
    def expected(self, message: ConsoleMessage) -> bool:
        # refused uploads are 4xx the browser logs; the overlay iframes of the desk are tested apart
        url = (message.location or {}).get("url", "")
        return "status of 4" in message.text or "/overlays/" in url or "/static/overlays/" in url


@pytest.fixture
def panel(context: BrowserContext, panel_server: Server) -> Iterator[Page1366]:
    p = Page1366(context.new_page(), panel_server)
    yield p
    assert p.errors == [], p.errors


def test_a_locked_rundown_disables_every_edit_button_and_the_desk_says_words(panel: Page1366, panel_server: Server) -> None:
    srv, page = panel_server, panel.page
    made = srv.api("POST", "/api/rundowns", {"name": "Замок"})
    rid, rev = made["id"], made["rev"]
    for label, segment in (("Ведущий", "Начало"), ("Итог", "Финал")):
        rev = srv.api("POST", f"/api/rundowns/{rid}/items",
                      {"segment": segment, "label": label, "graphic": "lower-third", "layer": "straps",
                       "out": 8000, "data": {"title": label}, "expected_rev": rev})["rev"]
    panel.open("/control/rundown")
    page.select_option("#rd-select", rid)
    expect(page.locator('.rd-item[data-label="Итог"]')).to_be_visible()
    edits = page.locator(".rd-seg button, .rd-row-btns button")
    expect(edits).to_have_count(2 * 4 + 2 * 4)            # ✎▲▼2× per segment, ▲▼2×✕ per row
    for i in range(edits.count()):
        expect(edits.nth(i)).to_be_enabled()
    # words, not identifiers: the graphic's name, the version, the out mode
    row = page.locator('.rd-item[data-label="Итог"]')
    expect(row).to_contain_text("Титр")
    expect(row).not_to_contain_text("lower-third")
    expect(row).to_contain_text("8 с")
    expect(page.locator("#rd-rev")).to_have_text(f"версия {rev}")
    expect(page.locator("#f-graphic option[value=lower-third]")).to_have_text("Титр")
    expect(page.locator("#f-out option")).to_have_text(["вручную", "сам", "через, с"])

    page.click("#rd-lock")
    expect(page.locator("body")).to_have_class(re.compile(r"\brd-locked\b"))
    for i in range(edits.count()):
        button = edits.nth(i)
        expect(button).to_be_disabled()
        expect(button).to_have_attribute("title", re.compile("Сценарий заблокирован$"))
        assert button.evaluate("b => getComputedStyle(b).borderStyle") == "dashed"   # the panel's disabled look
    before = srv.api("GET", f"/api/rundowns/{rid}")
    page.locator(".rd-seg button").first.click(force=True)     # a disabled button does nothing
    expect(page.locator("body")).to_have_attribute("data-rundown-rev", str(before["rev"]))
    page.click("#rd-lock")
    expect(page.locator("body")).not_to_have_class(re.compile(r"\brd-locked\b"))
    expect(edits.first).to_be_enabled()

    # the editor's out mode: a number of seconds is sent as milliseconds, and read back
    page.locator('.rd-item[data-label="Ведущий"]').dblclick()
    expect(page.locator("#f-label")).to_have_value("Ведущий")
    expect(page.locator("#f-out")).to_have_value("timed")
    expect(page.locator("#f-out-s")).to_have_value("8")
    page.fill("#f-out-s", "2.5")
    page.click("#f-save")
    expect(page.locator('.rd-item[data-label="Ведущий"]')).to_contain_text("2.5 с")
    page.select_option("#f-out", "manual")
    expect(page.locator("#f-out-s")).to_be_disabled()
    page.click("#f-save")
    expect(page.locator('.rd-item[data-label="Ведущий"]')).to_contain_text("вручную")
    items = srv.api("GET", f"/api/rundowns/{rid}")["segments"][0]["items"]
    assert items[0]["out"] == "manual"


def test_logo_on_air_is_confirmed_where_the_refusal_was(panel: Page1366, panel_server: Server) -> None:
    page = panel.page
    panel.open("/control/media")
    page.set_input_files("#media-file", files=[{"name": "setup.exe", "mimeType": "application/octet-stream", "buffer": EXE}])
    result = page.locator("#media-result")
    expect(result.locator("[data-kind=error]")).to_contain_text("setup.exe")
    expect(result).to_contain_text("это EXE")                          # why, in the panel's words
    page.set_input_files("#media-file", files=[{"name": "logo.png", "mimeType": "image/png", "buffer": png("blue")}])
    card = page.locator(".media-card").last
    media_id = card.get_attribute("data-id")
    card.locator('button[data-action="bug"]').click()
    expect(result.locator("[data-kind=ok]")).to_have_text(f"{media_id} в эфире логотипом в углу")
    expect(result.locator("[data-kind=error]")).to_have_count(0)       # the earlier refusal is gone
    panel.saw_notice(kind="ok", text="в эфире логотипом")
    assert panel_server.api("GET", "/api/graphics")["graphics"]["bug"]["data"]["media"] == media_id
    panel_server.api("POST", "/api/graphics", {"action": "hide", "graphic": "bug"})


def live_page(chromium: Browser) -> tuple[BrowserContext, Page]:
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    return ctx, ctx.new_page()


def test_live_names_the_seated_team_and_marks_the_sector_in_play(chromium: Browser, panel_server: Server) -> None:
    srv = panel_server
    ctx, page = live_page(chromium)
    try:
        club = srv.create(club_spec(), on_air=True)
        page.goto(srv.url + "/live")
        expect(page.locator('[data-field="experts"]')).to_have_text("Знатоки")   # nobody at the Central Table yet
        srv.play(club, "seat_team", team="t3")
        expect(page.locator('[data-field="experts"]')).to_have_text("Гамма")

        tv = srv.create(tv_spec(), on_air=True)
        expect(page.locator('[data-field="experts"]')).to_have_text("Команда Иванова")
        expect(page.locator(".sector.current")).to_have_count(0)
        srv.play(tv, "spin", landed=5)
        wait_revealed(page, 30_000)
        current = page.locator(".sector.current")
        expect(current).to_have_text("5")
        expect(current).to_have_attribute("aria-current", "true")
        outline = current.evaluate("el => getComputedStyle(el).outlineStyle")
        assert outline == "solid", outline
    finally:
        ctx.close()


def test_the_end_of_the_game_reads_as_one_sentence(panel: Page1366, panel_server: Server) -> None:
    srv, page = panel_server, panel.page
    game = srv.create(tv_spec(target=1), on_air=True)
    srv.play(game, "spin", landed=2)
    srv.play(game, "start_timer")
    srv.play(game, "judge", correct=True)
    panel.open("/control/")
    expect(page.locator("#finished")).to_have_text("Игра окончена. Победили знатоки, 1:0")
    page.select_option("#lang-select", "uk")
    expect(page.locator("#finished")).to_have_text("Гру закінчено. Перемогли знавці, 1:0")
    page.select_option("#lang-select", "en")
    expect(page.locator("#finished")).to_have_text("Game over. The experts won, 1:0")
    page.select_option("#lang-select", "ru")


def test_the_undo_confirmation_and_the_central_tables_candidates_fit_1366_by_900(
        panel: Page1366, panel_server: Server) -> None:
    """In each of the panel's languages: Ukrainian and English words run longer than Russian."""
    srv, page = panel_server, panel.page
    assert page.viewport_size == {"width": 1366, "height": 900}

    def fits() -> None:
        height = page.evaluate(SCROLL_HEIGHT)
        assert height <= 900, (page.evaluate("document.documentElement.lang"), height)

    tv = srv.create(tv_spec(), on_air=True)
    srv.play(tv, "spin", landed=2)
    for lang in LANGS:
        panel.open("/control/")
        panel.wait_rev(1, tv)
        page.select_option("#lang-select", lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        panel.button("undo").click()
        expect(page.locator("#undo-what")).to_be_visible()
        fits()
        expect(page.locator("#undo-yes")).to_be_in_viewport(ratio=1)
        page.keyboard.press("Escape")
        expect(panel.button("undo")).to_be_visible()                   # back in its place

    # the club screen after a lost round: candidates, «Жребий» and «Посадить»
    club = srv.create(club_spec(), on_air=True)
    srv.play(club, "seat_team", team="t1")
    srv.play(club, "spin", landed=1)
    srv.play(club, "start_timer")
    srv.play(club, "club_answers", correct=["t2", "t3"])
    srv.play(club, "judge", correct=False)
    for lang in LANGS:
        panel.open("/control/club")
        page.select_option("#lang-select", lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        candidate = page.locator('#candidates [data-team="t2"]')
        expect(candidate).to_be_visible()
        candidate.click()
        seat = panel.button("seat")
        expect(seat).to_be_enabled()
        fits()
        for el in (candidate, seat, panel.button("draw"), page.locator(".club-tables"), page.locator("#question")):
            expect(el).to_be_in_viewport(ratio=1)
    seat.click()
    expect(page.locator("#central-team")).to_have_attribute("data-team", "t2")
    for lang in LANGS:
        page.select_option("#lang-select", lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        fits()
    page.select_option("#lang-select", "ru")
