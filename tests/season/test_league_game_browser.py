"""A league game from the pages only, in the system Chromium against a real server (issue 25):
the holding page forms the teams and makes the game, the panel plays it, the rating page counts
it per day; the panel's setup form makes a game for the holding too. The members, the season and
the registrations are there before (made through the API by the fixture); everything the test
does, it does by clicking."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, expect

from tests.browser.helpers import PanelPage
from tests.support import Server

from .helpers import approved_members, ok
from .pages import play_club_game, play_tv_game

pytestmark = pytest.mark.browser

T1 = ["Анна Андреева", "Борис Бойко", "Вера Волкова", "Глеб Гаврилов"]
T2 = ["Дина Дорохова", "Егор Ефимов", "Жанна Жилина", "Захар Зимин"]


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict]]:
    srv = Server(tmp_path_factory.mktemp("league-game") / "data", demo=False).start()
    ids = approved_members(srv, T1 + T2)
    sid = ok(srv, "POST", "/api/seasons", {"name": "Весна 2027", "qualifying_days": 3}, 201)["id"]
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2027-03-07"})
    hid = f"{sid}-d1-sun"
    for team, names in (("Сфинкс", T1), ("Ворон", T2)):
        ok(srv, "POST", f"/api/holdings/{hid}/registrations", {"team": team, "members": [ids[n] for n in names]}, 201)
    yield srv, {"season": sid, "holding": hid, "ids": ids}
    srv.stop()


@pytest.fixture
def context(chromium: Browser) -> Iterator[BrowserContext]:
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="ru-RU")
    yield ctx
    ctx.close()


def test_a_holding_game_made_and_played_from_the_pages_counts(league: tuple[Server, dict], context: BrowserContext):
    srv, d = league
    panel = PanelPage(context.new_page(), srv).open()   # logs in: the admin pages share the login
    page = panel.page

    # the holding page: form the teams, then make the game from them (no JSON anywhere)
    page.goto(f"{srv.url}/control/admin/holdings/{d['holding']}")
    assert "/api/games" not in page.content()
    expect(page.locator("#make-game")).to_have_count(0)        # no teams yet: nothing to make
    page.click("#form-teams button[type=submit]")
    expect(page.locator("#make-game")).to_be_visible()
    page.fill("#make-game input[name=target]", "2")
    page.click("#make-game button[type=submit]")
    games = page.locator("#holding-games tbody tr[data-game]")
    expect(games).to_have_count(1)
    game = games.first.get_attribute("data-game")
    expect(games.first).to_contain_text("Весна 2027 · День 1")
    expect(page.locator("#warnings")).to_have_count(0)          # every player is a member

    # the panel: put it on air, seat Сфинкс, two correct answers; Ворон writes one correct answer
    play_club_game(panel, game, best=T1[1])

    # the rating page: Сфинкс 2 + 2 at the Central Table = 4 each, Ворон 1 each; days 2–3 unplayed
    page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/rating?lang=ru")
    rows = page.locator("#rating tbody tr")
    expect(rows).to_have_count(8)
    for name, points in [(n, 4) for n in T1] + [(n, 1) for n in T2]:
        row = rows.filter(has_text=name)
        cells = row.locator("td.num")
        expect(cells.nth(0)).to_have_text(str(points))
        expect(cells.nth(2)).to_have_text(str(points))          # day 1: that day's points
        expect(cells.nth(3)).to_have_text("—")                  # day 2: not played
    expect(page.locator(f'g.series[data-player="{T1[0]}"]')).to_have_attribute("data-values", "4")
    expect(page.locator("#ignored")).to_have_count(0)

    # the setup form: a league game picked by its holding fills season, stage, game day and teams
    page.goto(f"{srv.url}/control/setup")
    page.check("#f-rules-club")
    expect(page.locator("#f-league option", has_text="Весна 2027")).to_have_text(
        ["Весна 2027 · день 1 · вс 2027-03-07", "Весна 2027 · день 1 · ср 2027-03-10"])
    page.select_option("#f-league", d["holding"])
    expect(page.locator(".team-row .team-name").first).to_have_value("Сфинкс")
    expect(page.locator(".team-row .team-players").nth(1)).to_have_value(", ".join(T2))
    expect(page.locator("#f-game-day")).to_have_value(d["holding"])
    expect(page.locator("#f-stage")).to_be_visible()
    expect(page.locator("#f-stage")).to_have_value("qualifying")
    page.locator(".team-row .team-players").nth(1).fill(", ".join(T2[:3] + ["Гость Клуба"]))
    page.click("#f-create")
    created = page.locator("#f-created")
    expect(created).to_be_visible()
    # a player who is no member is said when the game is made, in the operator's words
    expect(page.locator("#f-errors .warn")).to_have_text(
        ["Гость Клуба («Ворон») не найден среди членов клуба: в рейтинге будет отдельной строкой по имени."])
    state = srv.state(created.get_attribute("data-game"))       # reading what was made
    assert (state["season"], state["stage"], state["game_day"]) == (d["season"], "qualifying", d["holding"])
    assert not panel.errors, panel.errors


def test_the_season_goes_on_to_the_final_from_the_pages(league: tuple[Server, dict], context: BrowserContext):
    """After the first test's game: a rename, a correction, the Final's teams, its two games made
    on the Final page and played in the panel, the Crystal Sphinx — and the rating equals the
    hand count throughout (Сфинкс 2 correct + 2 at the Central Table = 4; Ворон 1; +3 to Дина)."""
    srv, d = league
    ids = d["ids"]
    panel = PanelPage(context.new_page(), srv).open()
    page = panel.page
    renamed = "Анна Андреева-Бойко"

    # a rename on the members page: only the name changes
    page.goto(f"{srv.url}/control/admin/members")
    row = page.locator(f"#m{ids[T1[0]]}")
    row.locator("summary").click()
    edit = row.locator('form[action$="/edit"]')
    edit.locator("input[name=name]").fill(renamed)
    edit.locator("input[name=reason]").fill("сменила фамилию")
    edit.locator("button[type=submit]").click()
    expect(page.locator(f"#m{ids[T1[0]]}")).to_contain_text(renamed)

    # a correction on the rating page, by the member's number
    page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/rating")
    form = page.locator("#adjust-form")
    form.locator("input[name=player]").fill(str(ids[T2[0]]))
    form.locator("input[name=points]").fill("3")
    form.locator("input[name=reason]").fill("апелляция: ответ засчитан")
    form.locator("button[type=submit]").click()
    hand = {renamed: 4, **{n: 4 for n in T1[1:]}, T2[0]: 4, **{n: 1 for n in T2[1:]}}
    rows = page.locator("#rating tbody tr")
    expect(rows).to_have_count(8)
    for name, points in hand.items():
        expect(rows.filter(has_text=name).locator("td.num").first).to_have_text(str(points))
    expect(rows.filter(has_text=T1[0])).to_have_count(1)           # one row, under today's name
    expect(rows.filter(has_text=renamed).locator("td").first).to_have_text("1")

    # the Final's teams: Борис was named best player; the administration fills the Central Table
    page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/final")
    choice = page.locator("#choice-form")
    choice.locator("select[name=kind]").select_option("central_fill")
    fill = [ids[n] for n in (T1[0], T1[2], T1[3], T2[0], T2[1])]
    choice.locator("select[name=member]").select_option([str(m) for m in fill])
    choice.locator("input[name=reason]").fill("решение правления")
    choice.locator("button[type=submit]").click()
    expect(page.locator("#central-team .final-team li")).to_have_count(6)
    expect(page.locator("#central-team")).to_contain_text(renamed)
    expect(page.locator("#club-team .final-team li")).to_have_count(2)  # Жанна, Захар: 4 places for a selection game

    page.fill("#make-final-games input[name=target]", "1")
    page.click("#make-final-games button[type=submit]")
    finals = page.locator("#final-games tbody tr")
    expect(finals).to_have_count(2)
    expect(page.locator("#warnings")).to_contain_text("Составы финала ещё не окончательны")
    club_game, central_game = (finals.nth(i).locator("td").nth(1).inner_text() for i in (0, 1))

    # the panel plays both: the Club team wins 1:0, then the Central Table team loses 0:1
    for game, verdict in ((club_game, "correct"), (central_game, "incorrect")):
        play_tv_game(panel, game, verdict)

    page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/final")
    expect(page.locator("#final-winner")).to_contain_text("Команда Клуба")
    expect(page.locator("#winners li")).to_have_text([T2[2], T2[3]])
    award = page.locator("#award-form")
    award.locator("select[name=player]").select_option(str(ids[T2[3]]))
    award.locator("input[name=reason]").fill("лучший в финале")
    award.locator("button[type=submit]").click()
    expect(page.locator("#sphinx")).to_contain_text(T2[3])

    # the CSV the administration downloads says the same as the hand count
    page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/rating")
    with page.expect_download() as download:
        page.click("#rating-csv")
    text = open(download.value.path(), encoding="utf-8-sig").read()
    for name, points in hand.items():
        assert any(line.split(",")[1] == name and line.split(",")[3] == str(points) for line in text.splitlines()), name
    assert T1[0] + "," not in text
    assert not panel.errors, panel.errors
