"""Wrong or stale words a new operator met (issue 36), in the system Chromium against a real
server process: each is read where it is drawn.

- undo names the round it reverts («Верный ответ в секторе 3», «…, вопрос 1 из 3» in a blitz), and
  the decisive round's grant resets the score, it gives no point;
- the notice after «Решающий раунд?» says what was done, without the button's question mark;
- the superblitz clock says «Суперблиц», on air and on the desk;
- the club card: «Против знатоков играют Телезрители» (the verb agrees);
- the graphics desk with a club game on air: the Central Table's team, never «Нет игры в эфире».
"""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.browser.helpers import PanelPage, Tab, text_of, wait_on_air
from tests.browser.test_club_overlays import new_club_game
from tests.browser.test_panel import Panel, on_air
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def panel(context: BrowserContext, panel_server: Server) -> Iterator[Panel]:
    p = Panel(context.new_page(), panel_server)
    yield p
    assert not p.errors, p.errors


def undo_label(panel: Panel):
    return panel.button("undo").locator(".label")


def test_undo_names_the_round_and_the_superblitz_clock_its_kind(panel_server: Server, panel: Panel,
                                                                 tab: Tab) -> None:
    game = on_air(panel_server, panel)
    for sector, correct in ((2, False), (3, True)):
        panel_server.play(game, "spin", landed=sector)
        panel_server.play(game, "start_timer")
        panel_server.play(game, "judge", correct=correct)
    panel.wait_rev(6)
    expect(undo_label(panel)).to_have_text("Отменить: Верный ответ в секторе 3 (и очко)")

    # the superblitz: its 20 s are the superblitz's, on the desk and on air
    page = tab.open(f"{panel_server.url}/overlays/timer")
    panel_server.play(game, "spin", landed=9)
    panel_server.play(game, "choose_player", player="Борис")
    panel_server.play(game, "start_timer")
    panel.wait_rev(9)
    expect(undo_label(panel)).to_have_text("Отменить: Старт суперблица")
    expect(panel.page.locator("#timer-kind")).to_have_text("Суперблиц")
    wait_on_air(page, "timer")
    assert page.inner_text("[data-part=timer] .tm-kind") == "СУПЕРБЛИЦ"   # set in capitals
    panel_server.play(game, "judge", correct=True)
    panel.wait_rev(10)
    expect(undo_label(panel)).to_have_text(
        "Отменить: Верный ответ в секторе 9, вопрос 1 из 3 (и переход к следующему вопросу)")
    assert tab.errors == []


def test_the_decisive_round_request_and_grant_in_words(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel, target=2)
    panel_server.play(game, "spin", landed=1)
    panel_server.play(game, "start_timer")
    panel_server.play(game, "judge", correct=True)
    panel.wait_rev(3)
    panel.page.keyboard.press("d")
    panel.wait_rev(4)
    panel.saw_notice(code="ok", text="Выполнено: Просьба о решающем раунде")
    assert "Решающий раунд?" not in panel.page.evaluate("JSON.stringify(window.__notices)")
    panel_server.play(game, "decide_decisive_round", granted=True, players=["Анна", "Борис", "Вера"])
    panel.wait_rev(5)
    expect(undo_label(panel)).to_have_text("Отменить: Решающий раунд разрешён (и сброс счёта до 0 : 0)")


def test_the_club_card_agrees_with_the_viewers(panel_server: Server, tab: Tab) -> None:
    game = new_club_game(panel_server)
    panel_server.play(game, "seat_team", team="t1")
    page = tab.open(f"{panel_server.url}/overlays/question")
    panel_server.play(game, "spin", landed=4)
    wait_on_air(page, "question")
    assert text_of(page, "[data-ref=name]") == "Телезрители"
    assert page.inner_text("[data-ref=against]") == "Против знатоков играют"
    assert tab.errors == []


def test_the_graphics_desk_with_a_club_game_on_air(panel_server: Server, context: BrowserContext) -> None:
    game = new_club_game(panel_server)
    desk = PanelPage(context.new_page(), panel_server).open("/control/graphics")
    presets = desk.page.locator("#presets")
    expect(presets).to_have_text("За Центральным столом никого нет; ведущий и спонсор не указаны.")
    panel_server.play(game, "seat_team", team="t1")
    expect(presets.locator("button.preset").first).to_contain_text("Шесть сов")
    expect(presets).to_contain_text("знаток, команда «Шесть сов»")
    expect(presets).not_to_contain_text("Нет игры в эфире")
    assert not desk.errors, desk.errors
