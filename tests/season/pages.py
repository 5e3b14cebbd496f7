"""The league's games played in the panel, as an operator does, for the league's browser tests."""
from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.helpers import PanelPage


def on_air(panel: PanelPage, game: str) -> None:
    page = panel.page
    page.goto(f"{panel.server.url}/control/setup")
    page.click(f'#games-body button[data-game="{game}"]')
    if page.locator("#on-air-yes").is_visible():
        page.click("#on-air-yes")
    expect(page.locator(f'#games-body tr[data-game="{game}"]')).to_contain_text("В ЭФИРЕ")


def play_club_game(panel: PanelPage, game: str, best: str) -> None:
    """t1 seated; two correct answers at the Central Table; table 2 writes one correct answer in
    the first round; `best` named best player."""
    page = panel.page
    on_air(panel, game)
    page.goto(f"{panel.server.url}/control/club")
    panel.wait_rev(0, game)
    page.locator('#candidates [data-team="t1"]').click()
    panel.click(panel.button("seat"), rev=1)
    page.locator('.sector-chip[data-sector="1"]').click()
    panel.wait_rev(2)
    page.keyboard.press("Space")
    panel.wait_rev(3)
    panel.click(panel.button("correct"), rev=4)
    page.keyboard.press("2")
    page.keyboard.press("Enter")                                # marks table 2
    page.keyboard.press("Enter")                                # records the club tables
    panel.wait_rev(5)
    page.locator('.sector-chip[data-sector="2"]').click()
    panel.wait_rev(6)
    page.keyboard.press("Space")
    panel.wait_rev(7)
    panel.click(panel.button("correct"), rev=8)
    expect(page.locator("#finished")).to_contain_text("2:0")
    page.locator(f'#best-picker .player[data-player="{best}"]').click()
    panel.wait_rev(9)


def play_tv_game(panel: PanelPage, game: str, verdict: str) -> None:
    page = panel.page
    on_air(panel, game)
    page.goto(f"{panel.server.url}/control/")
    panel.wait_rev(0, game)
    page.locator('.sector[data-sector="1"]').click()
    panel.wait_rev(1)
    panel.click(panel.button("start_timer"), rev=2)
    panel.click(panel.button(verdict), rev=3)
