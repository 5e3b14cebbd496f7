"""The club game screen (/control/club) and creating a club game on the setup page, in the real
system Chromium against a real server process.

Covers: seating by draw, a spin, a lost round, club tables marked by clicks and by typing a
table number, «Записать» sending the whole list, the candidates highlighted, seating a candidate
by click and by keyboard, undo naming the team, disabled buttons with the server's reason, the
best player after the experts win, a 20-team grid on a tablet, and the setup form for a club
game with its line-up warning.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, Locator, expect

from tests.browser.helpers import PanelPage, assert_big_touch_targets, fits_the_screen
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TEAMS = [
    {"id": "t1", "name": "Альфа", "players": ["А1", "А2", "А3", "А4"]},
    {"id": "t2", "name": "Бета", "players": ["Б1", "Б2", "Б3", "Б4", "Б5"]},
    {"id": "t3", "name": "Гамма", "players": ["Г1", "Г2", "Г3", "Г4", "Г5", "Г6"]},
    {"id": "t4", "name": "Дельта", "players": ["Д1", "Д2", "Д3", "Д4"]},
]


def club_spec(target: int = 6, teams: list[dict] | None = None, day: str = "2026-03-01-sun") -> dict:
    return {"rules": "club", "title": "Клубная игра", "target": target, "game_day": day,
            "teams": teams or TEAMS, "timers": {"minute": 60_000}}


class ClubScreen(PanelPage):
    """The club screen: the club tables' tiles, the candidates, typing a table number."""

    home = "/control/club"

    def tile(self, team: str) -> Locator:
        return self.page.locator(f'.table-tile[data-team="{team}"]')

    def candidate(self, team: str) -> Locator:
        return self.page.locator(f'#candidates [data-team="{team}"]')

    def type_table(self, n: int, then: str) -> None:
        for digit in str(n):
            self.page.keyboard.press(digit)
        self.page.keyboard.press(then)


@pytest.fixture
def screen(context: BrowserContext, panel_server: Server) -> Iterator[ClubScreen]:
    s = ClubScreen(context.new_page(), panel_server)
    yield s
    assert not s.errors, s.errors


def table_of(team: str) -> int:
    return [t["id"] for t in TEAMS].index(team) + 1


def test_a_club_round_by_clicks_and_keyboard(panel_server: Server, screen: ClubScreen) -> None:
    game = panel_server.create(club_spec(day="2026-03-01-sun"), on_air=True)
    screen.open().wait_rev(0, game)
    page = screen.page

    # nobody at the Central Table: no spin, and the server's reason is on the button
    screen.expect_disabled("spin", "Центральный стол пуст")
    expect(page.locator(".table-tile")).to_have_count(4)
    expect(screen.tile("t3")).to_contain_text("Гамма")
    expect(page.locator("#candidates .candidate")).to_have_count(4)

    # «Жребий»: the server draws the first team among all four
    screen.click(screen.button("draw"), rev=1)
    first = panel_server.state(game)["central"]["team"]
    assert first in {"t1", "t2", "t3", "t4"}
    expect(page.locator("#central-team")).to_have_attribute("data-team", first)
    players = next(t["players"] for t in TEAMS if t["id"] == first)
    expect(page.locator("#central-players li")).to_have_text(players)
    expect(screen.tile(first)).to_have_class(re.compile(r"\bis-aloud\b"))
    expect(screen.button("undo").locator(".label")).to_contain_text(
        f"Посадка команды {next(t['name'] for t in TEAMS if t['id'] == first)}")

    # the top, by keyboard (the server draws), the minute, a wrong answer: the team leaves
    page.keyboard.press("w")
    screen.wait_rev(2)
    assert panel_server.state(game)["round"]["phase"] == "reading"
    page.keyboard.press("Space")
    screen.wait_rev(3)
    expect(page.locator("#timer")).to_have_attribute("data-state", "running")
    screen.click(screen.button("incorrect"), rev=4)
    state = panel_server.state(game)
    assert state["score"] == {"experts": 0, "viewers": 1}
    assert state["central"]["team"] is None and state["central"]["left"] == first
    expect(page.locator("#score-viewers")).to_have_text("1")
    expect(page.locator("#central-left")).to_contain_text("Только что ушла")
    # seating waits for the club tables' answers: the server's reason, buttons disabled
    expect(page.locator("#seat-why")).to_have_text("Сначала введите ответы столов клуба")
    expect(screen.button("draw")).to_be_disabled()
    expect(screen.tile(first)).to_be_disabled()        # the team that answered aloud never writes

    # two club tables answered correctly: one by a click, one by its number and Enter
    others = [t["id"] for t in TEAMS if t["id"] != first]
    a, b = others[0], others[2]
    screen.tile(a).click()
    screen.type_table(table_of(b), "Enter")
    expect(screen.tile(a)).to_have_class(re.compile(r"\bis-marked\b"))
    expect(screen.tile(b)).to_have_class(re.compile(r"\bis-marked\b"))
    expect(screen.tile(b)).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#recorded")).to_have_text("Ответы столов на этот вопрос ещё не записаны.")
    assert panel_server.state(game)["rev"] == 4          # marks are a draft until «Записать»
    expect(screen.button("record").locator(".label")).to_have_text("Записать (2)")
    page.keyboard.press("Enter")                        # Enter with no number: record
    screen.wait_rev(5)
    state = panel_server.state(game)
    assert state["round"]["club_correct"] == [a, b]
    names = {t["id"]: t["name"] for t in TEAMS}
    expect(page.locator("#recorded")).to_have_text(
        f"Записано (2): стол {table_of(a)} «{names[a]}», стол {table_of(b)} «{names[b]}»")

    # the candidates: exactly those who answered correctly, highlighted in the grid too
    assert sorted(state["central"]["candidates"]) == sorted([a, b])
    expect(page.locator("#candidates .candidate")).to_have_count(2)
    expect(page.locator(".table-tile.is-candidate")).to_have_count(2)
    expect(screen.tile(a)).to_have_class(re.compile(r"\bis-candidate\b"))
    expect(screen.tile(others[1])).not_to_have_class(re.compile(r"\bis-candidate\b"))
    screen.expect_disabled("seat", "выберите команду среди кандидатов")  # two candidates: choose one first
    screen.candidate(b).click()
    expect(screen.button("seat").locator(".label")).to_have_text(f"Посадить «{names[b]}»")
    screen.click(screen.button("seat"), rev=6)
    assert panel_server.state(game)["central"]["team"] == b
    expect(page.locator("#central-team")).to_have_attribute("data-team", b)

    # a second round from the keyboard: the top stopped on 7 or 8 (digits, L); wrong; nobody wrote it
    landed = 8 if state["round"]["sector"] == 7 else 7
    screen.type_table(landed, "l")
    screen.wait_rev(7)
    assert panel_server.state(game)["round"]["sector"] == landed
    page.keyboard.press("Space")
    screen.wait_rev(8)
    page.keyboard.press("Minus")
    screen.wait_rev(9)
    page.keyboard.press("r")                            # record: no table answered correctly
    screen.wait_rev(10)
    state = panel_server.state(game)
    assert state["round"]["club_correct"] == []
    expect(page.locator("#recorded")).to_have_text("Записано: ни один стол не ответил верно.")
    candidates = state["central"]["candidates"]
    assert b not in candidates and first not in candidates and candidates
    # a team that may not sit now is refused by the server, with its reason; nothing changes
    screen.type_table(table_of(first), "s")
    expect(page.locator('.notice[data-code="not_a_candidate"]')).to_contain_text("Эта команда не может сесть сейчас")
    page.wait_for_timeout(300)
    assert panel_server.state(game)["rev"] == 10
    # a candidate by its table number and S
    screen.type_table(table_of(candidates[0]), "s")
    screen.wait_rev(11)
    assert panel_server.state(game)["central"]["team"] == candidates[0]

    # undo names the team, asks, and takes the seat back
    page.keyboard.press("u")
    expect(page.locator("#undo-what")).to_contain_text(f"Посадка команды {names[candidates[0]]}")
    page.keyboard.press("Enter")
    screen.wait_rev(12)
    assert panel_server.state(game)["central"]["team"] is None
    expect(page.locator("#candidates .candidate")).to_have_count(len(candidates))


def test_best_player_after_the_experts_win(panel_server: Server, screen: ClubScreen) -> None:
    spec = {**club_spec(target=2, day="2026-03-15-sun"),   # a fresh day: nobody has lost a round
            "sectors": [{"number": 9, "kind": "superblitz"}]}
    game = panel_server.create(spec, on_air=True)
    screen.open().wait_rev(0, game)
    page = screen.page
    screen.type_table(3, "s")                           # Гамма sits: any team may take the first seat
    screen.wait_rev(1)
    page.locator('.sector-chip[data-sector="1"]').click()
    screen.wait_rev(2)
    page.keyboard.press("Space")
    screen.wait_rev(3)
    screen.click(screen.button("correct"), rev=4)

    # the superblitz: the captain names the player before the first question
    page.locator('.sector-chip[data-sector="9"]').click()
    screen.wait_rev(5)
    screen.expect_disabled("start_timer", "Игрок суперблица не назван")
    expect(page.locator("#sb-picker .player .label")).to_have_text(["Г1", "Г2", "Г3", "Г4", "Г5", "Г6"])
    page.locator('#sb-picker .player[data-player="Г2"]').click()
    screen.wait_rev(6)
    assert panel_server.state(game)["round"]["player"] == "Г2"
    for rev in (7, 9, 11):                              # three questions, each its own 20 s
        page.keyboard.press("Space")
        screen.wait_rev(rev)
        page.keyboard.press("Equal")
        screen.wait_rev(rev + 1)
    state = panel_server.state(game)
    assert state["status"] == "finished" and state["winner"] == "experts"
    expect(page.locator("#finished")).to_contain_text("Победили знатоки, 2:0")
    expect(screen.button("spin").locator(".why")).to_have_text("Игра окончена")

    picker = page.locator("#best-picker")
    expect(picker).to_be_visible()
    expect(picker.locator(".player .label")).to_have_text(["Г1", "Г2", "Г3", "Г4", "Г5", "Г6"])
    picker.locator('.player[data-player="Г4"]').click()
    screen.wait_rev(13)
    assert panel_server.state(game)["best_player"] == "Г4"
    expect(picker.locator('.player[data-player="Г4"]')).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#best-now")).to_have_text("Лучший игрок: Г4")
    # the club tables may still write their answer to the last question after the end
    screen.type_table(1, "Enter")
    page.keyboard.press("Enter")
    screen.wait_rev(14)
    assert panel_server.state(game)["round"]["club_correct"] == ["t1"]


def test_twenty_tables_on_a_tablet(panel_server: Server, tablet_context: BrowserContext) -> None:
    teams = [{"id": f"c{i}", "name": f"Команда {i}", "players": [f"Игрок {i}.{j}" for j in range(1, 6)]}
             for i in range(1, 21)]
    game = panel_server.create(club_spec(teams=teams, day="2026-03-04-wed"), on_air=True)
    screen = ClubScreen(tablet_context.new_page(), panel_server).open()
    screen.wait_rev(0, game)
    page = screen.page
    expect(page.locator(".table-tile")).to_have_count(20)
    assert fits_the_screen(page)
    assert_big_touch_targets(screen.tile("c17"), screen.button("draw"), screen.button("record"), screen.button("correct"))
    screen.candidate("c20").tap()
    screen.button("seat").tap()
    screen.wait_rev(1)
    page.locator('.sector-chip[data-sector="13"]').tap()
    screen.wait_rev(2)
    # two-digit table numbers from the keyboard, and taps
    screen.type_table(17, "Enter")
    screen.tile("c2").tap()
    screen.tile("c11").tap()
    screen.tile("c11").tap()                        # a second tap takes the mark back
    expect(page.locator(".table-tile.is-marked")).to_have_count(2)
    screen.button("record").tap()
    screen.wait_rev(3)
    assert panel_server.state(game)["round"]["club_correct"] == ["c2", "c17"]
    assert not screen.errors, screen.errors


def test_create_a_club_game_on_the_setup_page(panel_server: Server, screen: ClubScreen) -> None:
    page = screen.open("/control/setup").page
    page.check("#f-rules-club")
    expect(page.locator("#f-experts-box")).to_be_hidden()
    expect(page.locator("#f-t-club_help")).to_be_hidden()
    page.fill("#f-title", "Клуб, игра 1")
    page.fill("#f-game-day", "2026-03-08-sun")
    rows = page.locator(".team-row")
    lineups = [("Сфинкс", "Анна, Борис, Вера, Глеб"), ("Ворон", "Дина, Егор, Жанна"), ("Сова", "Зоя; Иван; Кира; Лев; Мила")]
    for i, (name, players) in enumerate(lineups):
        rows.nth(i).locator(".team-name").fill(name)
        rows.nth(i).locator(".team-players").fill(players)
    # three players is unusual: a warning, not a refusal
    expect(page.locator("#f-team-warnings")).to_contain_text("Стол 2 «Ворон»: игроков 3 — обычно от 4 до 6")
    page.click("#f-add-team")
    expect(rows).to_have_count(5)
    page.click("#f-create")
    created = page.locator("#f-created")
    expect(created).to_be_visible()
    game = created.get_attribute("data-game")
    expect(page.locator(f'tr[data-game="{game}"]')).to_contain_text("В ЭФИРЕ")
    state = panel_server.state(game)
    assert state["rules"] == "club" and state["title"] == "Клуб, игра 1" and state["game_day"] == "2026-03-08-sun"
    assert [(t["id"], t["name"], t["players"]) for t in state["teams"]] == [
        ("t1", "Сфинкс", ["Анна", "Борис", "Вера", "Глеб"]), ("t2", "Ворон", ["Дина", "Егор", "Жанна"]),
        ("t3", "Сова", ["Зоя", "Иван", "Кира", "Лев", "Мила"])]
    assert all(s["kind"] == "regular" for s in state["sectors"])   # no sponsor sector in the club
    assert state["timers"]["minute"] == 60_000

    # the live page points to the club screen; the club screen runs the new game
    page.click('nav a[href="/control/"]')
    expect(page.locator("#club-link")).to_be_visible()
    page.click("#club-link a")
    screen.wait_rev(0, game)
    expect(page.locator(".table-tile")).to_have_count(3)
