"""The decisive round as the viewers see it (issue 36, RULES.md 1.8), in the system Chromium
against a real server process.

Granting the decisive round resets the score to 0:0 and the round decides the game: won, the
experts have 6:0. The picture must tell the story: the result says the game was won in the
decisive round from the score the experts asked at («5 : 5 → решающий раунд»), so five viewers'
prizes above «6 : 0» no longer read as a shutout; and right after the grant the full layout does
not keep the last, closed sector's card on air under the new «Решающий раунд» flag.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.helpers import (Tab, on_air, outside_safe_area, screenshot, screenshot_dir, settle, text_of,
                                   wait_js, wait_off_air, wait_on_air, wait_revealed)
from tests.browser.test_overlays import new_game
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("decisive") / "data", mode="threading").start()
    yield srv
    srv.stop()


def five_all(server: Server) -> str:
    """A tv game on air at 5:5 (single-question sectors only), the last round closed."""
    game = new_game(server)
    for n, sector in enumerate((1, 2, 3, 4, 6, 7, 8, 10, 11, 12)):
        server.play(game, "spin", landed=sector)
        server.play(game, "start_timer")
        server.play(game, "judge", correct=n % 2 == 0)
    state = server.state(game)
    assert state["score"] == {"experts": 5, "viewers": 5} and state["round"]["phase"] == "closed"
    return game


def grant(server: Server, game: str) -> None:
    server.play(game, "request_decisive_round")
    state = server.play(game, "decide_decisive_round", granted=True, players=["Анна", "Борис", "Вера"])
    assert state["score"] == {"experts": 0, "viewers": 0}
    assert state["decisive"]["before"] == {"experts": 5, "viewers": 5}


def test_right_after_the_grant_the_last_sectors_card_leaves(server: Server, tab: Tab, tmp_path: Path) -> None:
    game = five_all(server)
    page = tab.open(f"{server.url}/overlays/full")
    wait_revealed(page)
    wait_on_air(page, "question")             # the closed sector 12's card, with its verdict
    assert text_of(page, "[data-part=question] [data-ref=sector]") == "Сектор 12"
    grant(server, game)
    wait_js(page, "() => document.querySelector('[data-ref=experts]').textContent === '0'")
    wait_off_air(page, "question")
    settle(page)
    # the scoreboard says it; no card of sector 12 under the flag
    assert "Решающий раунд" in page.inner_text("[data-part=scoreboard]")
    assert not on_air(page, "question")
    assert "Сектор 12" not in page.inner_text("#stage")
    screenshot(page, screenshot_dir(tmp_path), "decisive-granted-full")
    # the decisive round's own card comes up with the flag
    server.play(game, "spin", landed=13)
    wait_revealed(page)
    wait_on_air(page, "question")
    assert text_of(page, "[data-part=question] [data-ref=sector]") == "Сектор 13"
    assert text_of(page, "[data-part=question] [data-ref=flag]") == "Решающий раунд"
    assert tab.errors == []


@pytest.mark.parametrize("lang, story, title", [
    ("ru", "5 : 5 → решающий раунд", "Победа знатоков"),
    ("en", "5 : 5 → decisive round", "The experts win"),
])
def test_the_result_says_the_game_was_won_in_the_decisive_round(server: Server, tab: Tab, tmp_path: Path,
                                                                 lang: str, story: str, title: str) -> None:
    game = five_all(server)
    grant(server, game)
    server.play(game, "spin", landed=13)
    server.play(game, "start_timer")
    state = server.play(game, "judge", correct=True)
    assert state["status"] == "finished" and state["score"] == {"experts": 6, "viewers": 0}
    assert len(state["prizes"]) == 5

    page = tab.open(f"{server.url}/overlays/result?game={game}&lang={lang}")
    wait_on_air(page, "result")
    settle(page)
    drawn = page.inner_text("[data-part=result] .rs-body")   # what is drawn, in reading order
    lines = [line.strip() for line in drawn.splitlines() if line.strip()]
    assert lines.index(title) < lines.index(story) < lines.index("6")
    box = page.locator("[data-ref=decisive]").bounding_box()
    assert box and box["height"] >= 30
    assert page.eval_on_selector("[data-ref=decisive]", "el => getComputedStyle(el).opacity") == "1"
    assert outside_safe_area(page) == []
    screenshot(page, screenshot_dir(tmp_path), f"decisive-result-{lang}")
    assert tab.errors == []


def test_an_ordinary_win_has_no_decisive_line(server: Server, tab: Tab) -> None:
    game = new_game(server, target=1)
    server.play(game, "spin", landed=1)
    server.play(game, "start_timer")
    server.play(game, "judge", correct=True)
    page = tab.open(f"{server.url}/overlays/result?game={game}")
    wait_on_air(page, "result")
    assert page.locator("[data-ref=decisive]").is_hidden()
    assert "решающий" not in page.inner_text("[data-part=result]").lower()


def test_the_audience_page_tells_the_same_story(server: Server, tab: Tab) -> None:
    game = five_all(server)
    page = tab.page
    page.goto(f"{server.url}/live")
    page.wait_for_function("() => document.querySelector('[data-field=score-experts]').textContent === '5'")
    grant(server, game)
    page.wait_for_function("() => document.querySelector('[data-field=winner]').textContent !== ''")
    assert page.inner_text("[data-field=winner]") == "5 : 5 → решающий раунд"
    server.play(game, "spin", landed=13)
    server.play(game, "start_timer")
    server.play(game, "judge", correct=True)
    page.wait_for_function("() => document.querySelector('[data-field=score-experts]').textContent === '6'")
    assert page.inner_text("[data-field=winner]") == "Победа знатоков · 5 : 5 → решающий раунд"
    assert tab.errors == []
