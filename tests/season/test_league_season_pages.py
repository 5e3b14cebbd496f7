"""A whole league season from the pages only, in the system Chromium against a real server
(issue 25, «Done when»): the member list imported from a CSV file on the members page, every
candidate approved at once, the season and its two game days made on the league pages, two
teams registered on each Sunday with their fees paid, each holding's club game made by its
«Создать игру» and played in the panel, a rating correction, the Final's teams decided, its two
games made on the Final page and played in the panel, a «Звёздные войны» series of them — and the
rating CSV the administrator downloads equals the hand count below. The test makes no API call:
the server starts empty and everything is done by filling the pages' forms.

Kept small (12 members, 2 game days, 2 teams a day, games to 2 and to 1) so it stays cheap."""
from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from tests.browser.helpers import PanelPage
from tests.support import Server

from .pages import play_club_game, play_tv_game

pytestmark = pytest.mark.browser

M = ["Алла Лебедева", "Богдан Орлов", "Валерия Соколова", "Георгий Жуков", "Дарья Зайцева", "Евгений Козлов",
     "Жанна Морозова", "Зиновий Новиков", "Ирина Павлова", "Кирилл Рябов", "Лидия Смирнова", "Марк Тихонов"]
# who plays where: day 1 Сфинкс (seated first) against Ворон, day 2 Сова (seated first) against Ёж
DAY1 = {"Сфинкс": M[0:4], "Ворон": M[4:8]}
DAY2 = {"Сова": M[8:12], "Ёж": [M[0], M[2], M[4], M[5]]}
BEST = {1: M[1], 2: M[9]}  # the best player named after each club game
CORRECTION = (M[7], 3, 2)  # an appeal: +3 on day 2

# the hand count: each game, the seated team answers 2 at the Central Table and its players get
# 2 + 2 (their table's club answers: the seated team's correct answers count for its table too);
# the other team's table writes one correct answer: 1 each
HAND = {
    M[0]: (4, 1), M[1]: (4, 0), M[2]: (4, 1), M[3]: (4, 0),
    M[4]: (1, 1), M[5]: (1, 1), M[6]: (1, 0), M[7]: (1, 3),     # Зиновий: 1 + the correction on day 2
    M[8]: (0, 4), M[9]: (0, 4), M[10]: (0, 4), M[11]: (0, 4),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("league-season") / "data", demo=False).start()
    yield srv
    srv.stop()


@pytest.fixture
def context(chromium: Browser) -> Iterator[BrowserContext]:
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="ru-RU", accept_downloads=True)
    yield ctx
    ctx.close()


def no_refusal(page: Page) -> None:
    expect(page.locator("#error")).to_have_count(0)


def register_and_pay(page: Page, url: str, teams: dict[str, list[str]], receipts: Iterator[str]) -> None:
    page.goto(url)
    for team, names in teams.items():
        form = page.locator("#register-team")
        form.locator('input[name="team"]').fill(team)
        for name in names:
            form.locator("#team-members label", has_text=name).locator("input").check()
        form.locator('button[type="submit"]').click()
        no_refusal(page)
        row = page.locator("#registrations tbody tr", has_text=team)
        row.locator("details summary").first.click()
        row.locator('input[name="receipt"]').fill(next(receipts))   # the season's team fee (the placeholder)
        row.locator('form[action$="/pay"] button[type="submit"]').click()
        no_refusal(page)
        expect(page.locator("#registrations tbody tr", has_text=team).locator(".paid")).to_contain_text("1200")


def make_holding_game(page: Page, url: str, first: str) -> str:
    """Forms the holding's teams and makes its club game (to 2): the game's id."""
    page.goto(url)
    page.click("#form-teams button[type=submit]")
    no_refusal(page)
    expect(page.locator("#team-t1 h3")).to_contain_text(first)   # the team seated first
    page.fill("#make-game input[name=target]", "2")
    page.click("#make-game button[type=submit]")
    no_refusal(page)
    expect(page.locator("#warnings")).to_have_count(0)         # every player is a member
    row = page.locator("#holding-games tbody tr[data-game]")
    expect(row).to_have_count(1)
    return row.get_attribute("data-game") or ""


def test_a_season_from_the_pages_only_equals_the_hand_count(server: Server, context: BrowserContext):
    srv = server
    admin = f"{srv.url}/control/admin"
    panel = PanelPage(context.new_page(), srv).open()   # logs in: the admin pages share the login
    page = panel.page

    # members: the club's list as a Russian-locale Excel saves it, then every candidate approved
    page.goto(f"{admin}/members")
    rows = "Имя;Совершеннолетний;Номер в рейтинге\r\n" + "".join(f"{n};да;{100 + i}\r\n" for i, n in enumerate(M))
    page.set_input_files("#import-form input[name=file]",
                         files=[{"name": "члены.csv", "mimeType": "text/csv", "buffer": rows.encode("cp1251")}])
    page.click("#import-form button[type=submit]")
    no_refusal(page)
    expect(page.locator("#members tbody tr")).to_have_count(12)
    bulk = page.locator("#bulk-form")
    bulk.locator("select[name=status]").select_option("approved")
    bulk.locator("input[name=date]").fill("2026-11-01")
    bulk.locator("input[name=reason]").fill("общее собрание")
    page.click("#bulk-candidates")
    no_refusal(page)
    expect(page.locator("#members tbody tr.status-approved")).to_have_count(12)

    # the season, its fees and two game days
    page.goto(f"{admin}/")
    form = page.locator("#season-form")
    form.locator("input[name=name]").fill("Осень 2027")
    form.locator("input[name=qualifying_days]").fill("2")
    form.locator("input[name=fee_individual]").fill("300")
    form.locator("input[name=fee_team]").fill("1200")
    form.locator("button[type=submit]").click()
    no_refusal(page)
    page.wait_for_url(re.compile(r"/control/admin/seasons/[^/?#]+$"))
    sid = page.url.rsplit("/", 1)[1]
    for day, sunday in ((1, "2027-03-07"), (2, "2027-03-14")):
        page.select_option("#day-form select[name=day]", str(day))
        page.fill("#day-form input[name=sunday]", sunday)
        page.click("#day-form button[type=submit]")
        no_refusal(page)
    sundays = page.locator("#days tbody a", has_text="воскресенье")    # each day's Sunday holding
    expect(sundays).to_have_count(2)
    holdings = {day: sundays.nth(day - 1).get_attribute("href") for day in (1, 2)}

    # registration with fees, the teams formed, the game made and played: each game day
    receipts = iter(["К-101", "К-102", "К-103", "К-104"])
    games = {}
    for day, teams in ((1, DAY1), (2, DAY2)):
        url = srv.url + (holdings[day] or "")
        register_and_pay(page, url, teams, receipts)
        games[day] = make_holding_game(page, url, next(iter(teams)))
        play_club_game(panel, games[day], BEST[day])

    # a correction on the rating page, by the member's name
    page.goto(f"{admin}/seasons/{sid}/rating")
    form = page.locator("#adjust-form")
    player, points, day = CORRECTION
    form.locator("input[name=player]").fill(player)
    form.locator("input[name=points]").fill(str(points))
    form.locator("select[name=day]").select_option(str(day))
    form.locator("input[name=reason]").fill("апелляция: ответ засчитан")
    form.locator("button[type=submit]").click()
    no_refusal(page)
    expect(page.locator("#ignored")).to_have_count(0)

    # the Final: two best players named; the administration fills the Central Table with four
    page.goto(f"{admin}/seasons/{sid}/final")
    choice = page.locator("#choice-form")
    choice.locator("select[name=kind]").select_option("central_fill")
    fill = [M[0], M[2], M[3], M[8]]
    choice.locator("select[name=member]").select_option(
        [choice.locator("option", has_text=name).get_attribute("value") or "" for name in fill])
    choice.locator("input[name=reason]").fill("решение правления")
    choice.locator("button[type=submit]").click()
    no_refusal(page)
    central = {BEST[1], BEST[2], *fill}
    club = set(M) - central
    expect(page.locator("#central-team .final-team li")).to_have_count(6)
    expect(page.locator("#club-team .final-team li")).to_have_count(6)
    for name in club:
        expect(page.locator("#club-team")).to_contain_text(name)
    page.fill("#make-final-games input[name=target]", "1")
    page.click("#make-final-games button[type=submit]")
    no_refusal(page)
    finals = page.locator("#final-games tbody tr")
    expect(finals).to_have_count(2)
    club_game, central_game = (finals.nth(i).locator("td").nth(1).inner_text() for i in (0, 1))
    play_tv_game(panel, club_game, "correct")        # the Club team 1:0
    play_tv_game(panel, central_game, "incorrect")   # the Central Table team 0:1
    page.goto(f"{admin}/seasons/{sid}/final")
    expect(page.locator("#final-winner")).to_contain_text("Команда Клуба")
    expect(page.locator("#winners li")).to_have_count(6)

    # a «Звёздные войны» series: the two Final games as its duel, by the ids the index lists
    page.goto(f"{admin}/")
    page.fill("#series-form input[name=name]", "Звёздные войны")
    page.fill("#series-form textarea[name=duels]", f"{club_game}, {central_game}")
    page.click("#series-form button[type=submit]")
    no_refusal(page)
    page.wait_for_url(re.compile(r"/control/admin/series/[^/?#]+$"))
    expect(page.locator("h1")).to_contain_text("Звёздные войны")
    expect(page.locator('.duel[data-scope="duel:1"] .entry.winner')).to_contain_text("Команда Клуба")  # 1:0 beats 0:1
    expect(page.locator("#advancing")).to_contain_text("Команда Клуба")

    # the rating CSV the administrator downloads equals the hand count
    page.goto(f"{admin}/seasons/{sid}/rating")
    with page.expect_download() as download:
        page.click("#rating-csv")
    with open(download.value.path(), encoding="utf-8-sig") as f:
        table = list(csv.reader(io.StringIO(f.read())))
    head, body = table[0], table[1:]
    assert head[1] == "Игрок" and head[3] == "Очки" and head[-2:] == ["После дня 1", "После дня 2"], head
    got = {r[1]: (int(r[3]), int(r[-2]), int(r[-1])) for r in body}
    assert got == {name: (d1 + d2, d1, d1 + d2) for name, (d1, d2) in HAND.items()}
    # the fees: four team registrations, each paid in cash
    page.goto(f"{admin}/seasons/{sid}")
    with page.expect_download() as download:
        page.click("a[download][href*='fees.csv']")
    with open(download.value.path(), encoding="utf-8-sig") as f:
        fees = list(csv.reader(io.StringIO(f.read())))
    assert fees[-1][7:10] == ["оплачено 4 из 4", "4800", "RUB"], fees[-1]

    assert not panel.errors, panel.errors
