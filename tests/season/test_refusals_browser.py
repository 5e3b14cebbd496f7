"""Every refusal of the league pages in the operator's language (issue 25, item 4), provoked in
the system Chromium by filling the real forms, in Russian and in Ukrainian: a 7th player, a player
in two teams, a day not on a Sunday, a missing reason, approving a minor, a Final choice, the
series form. No refusal carries a Latin-script sentence (the API's English); warnings name teams,
not ids; the action log reads as sentences, not JSON. Then the rating page on paper: no menus
or forms, dark text on white, a legend in colour."""
from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support import PASSWORD, Server

from .helpers import approved_members, club_game, ok, play_club

pytestmark = pytest.mark.browser

PLAYERS = [f"Игрок {c}" for c in "АБВГДЕЖЗИКЛМ"]
MINOR = "Юный Знаток"
LATIN = re.compile(r"[A-Za-z]{2,}(?:[\s,.:;()'\"-]+[A-Za-z]{2,})+")  # two Latin words in a row
# screenshots to look at: $CHGK_SCREENSHOT_DIR when set, else the system's temporary folder
SHOTS = Path(os.environ.get("CHGK_SCREENSHOT_DIR") or tempfile.gettempdir()) / "league-refusals"


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict]]:
    srv = Server(tmp_path_factory.mktemp("refusals") / "data", demo=False).start()
    ids = approved_members(srv, PLAYERS)
    approved_members(srv, [f"Свободный {i}" for i in range(1, 9)])  # registered nowhere yet
    ids[MINOR] = ok(srv, "POST", "/api/members", {"name": MINOR, "adult": False}, 201)["id"]
    sid = ok(srv, "POST", "/api/seasons", {"name": "Сезон 2027", "qualifying_days": 3}, 201)["id"]
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2027-03-07"})
    sun, wed = f"{sid}-d1-sun", f"{sid}-d1-wed"
    ok(srv, "POST", f"/api/holdings/{sun}/registrations", {"team": "Ежи", "members": [ids[p] for p in PLAYERS[:6]]}, 201)
    for p in PLAYERS[6:]:
        ok(srv, "POST", f"/api/holdings/{sun}/registrations", {"member": ids[p]}, 201)
    teams = ok(srv, "POST", f"/api/holdings/{sun}/teams/form", {})["teams"]
    game = club_game(srv, sid, sun, teams)
    play_club(srv, game, "t1", [(True, [], None)] * 3, best=teams[0]["players"][0])
    # three players on Wednesday: a team short of four
    extra = approved_members(srv, ["Поздний Один", "Поздний Два", "Поздний Три"])
    for mid in extra.values():
        ok(srv, "POST", f"/api/holdings/{wed}/registrations", {"member": mid}, 201)
    ok(srv, "POST", f"/api/holdings/{wed}/teams", {"name": "Опоздавшие", "members": list(extra.values()),
                                                  "reason": "пришли втроём"}, 201)
    # games the rating leaves out, and two Final games of the Club team: said on the pages, not in English
    lineups = [{"id": t["id"], "name": t["name"], "players": t["players"]} for t in teams]
    srv.create({"rules": "club", "title": "Тренировка без стадии", "season": sid, "game_day": sun, "teams": lineups})
    srv.create({"rules": "club", "title": "Игра не в свой день", "season": sid, "stage": "qualifying",
                "game_day": "2027-03-22-sun", "teams": lineups})
    srv.create({"rules": "club", "title": "Вечерняя игра", "season": sid, "stage": "qualifying", "game_day": sun,
                "teams": lineups})                                    # still played: named by its title
    for title in ("Финал, первая попытка", "Финал, вторая попытка"):
        srv.create({"rules": "tv", "title": title, "target": 2, "season": sid, "stage": "final", "final_team": "club",
                    "experts": {"name": "Клуб", "players": PLAYERS[:6]}})
    yield srv, {"season": sid, "sun": sun, "wed": wed, "ids": ids, "club_game": game}
    srv.stop()


@pytest.fixture(scope="module")
def page(chromium: Browser, league: tuple[Server, dict]) -> Iterator[Page]:
    srv, _ = league
    page = chromium.new_page(viewport={"width": 1366, "height": 900})
    page.goto(f"{srv.url}/control/admin/")
    page.fill('input[type="password"]', PASSWORD)
    page.click('button[type="submit"]')
    page.wait_for_url(re.compile(r"/control/"))
    yield page
    page.close()


def refusal(page: Page, shot: str) -> str:
    """The refusal the page shows: in the page's language, no English sentence in it."""
    box = page.locator("#error")
    expect(box).to_be_visible()
    text = box.inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{shot}.png"), full_page=False)
    assert text.split()[:2] in (["Не", "сделано:"], ["Не", "зроблено:"]), text
    assert not LATIN.search(text), f"English in a refusal: {text!r}"
    return text


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_every_refusal_in_the_operators_words(page: Page, league: tuple[Server, dict], lang: str):
    srv, d = league
    admin = f"{srv.url}/control/admin"
    uk = lang == "uk"

    # a 7th player in a team
    page.goto(f"{admin}/holdings/{d['wed']}?lang={lang}")
    form = page.locator("#register-team")
    form.locator('input[name="team"]').fill("Семеро")
    boxes = form.locator('input[name="members"]')
    assert boxes.count() >= 7
    for i in range(7):
        boxes.nth(i).check()
    form.locator('button[type="submit"]').click()
    said = refusal(page, f"{lang}-seventh-player")
    assert ("від 1 до 6 гравців, а вибрано 7" if uk else "от 1 до 6 игроков, а выбрано 7") in said
    # the refused form comes back as it was sent: untick one and register
    expect(page.locator('#register-team input[name="members"]:checked')).to_have_count(7)
    expect(page.locator('#register-team input[name="team"]')).to_have_value("Семеро")

    # a player in two teams: the Sunday team's player once more, in a new team
    page.goto(f"{admin}/holdings/{d['sun']}?lang={lang}")
    page.evaluate("""(id) => {  // the list offers only free members; the page may be stale
        const box = document.querySelector('#team-members');
        box.insertAdjacentHTML('beforeend', `<label><input type="checkbox" name="members" value="${id}" checked> x</label>`);
    }""", d["ids"][PLAYERS[0]])
    page.locator('#register-team input[name="team"]').fill("Двойники")
    page.locator("#register-team button[type=submit]").click()
    said = refusal(page, f"{lang}-two-teams")
    assert PLAYERS[0] in said and ("у двох командах" if uk else "в двух командах") in said

    # a game day not on a Sunday
    page.goto(f"{admin}/seasons/{d['season']}?lang={lang}")
    page.select_option("#day-form select[name=day]", "2")
    page.fill("#day-form input[name=sunday]", "2027-03-16")
    page.click("#day-form button[type=submit]")
    said = refusal(page, f"{lang}-not-sunday")
    assert said.endswith(("2027-03-16 — не неділя: ігровий день призначається на неділю (середа — через три дні)."
                          if uk else "2027-03-16 — не воскресенье: игровой день назначается на воскресенье "
                          "(среда — через три дня)."))

    # moving a scheduled day without a reason
    page.select_option("#day-form select[name=day]", "1")
    page.fill("#day-form input[name=sunday]", "2027-03-14")
    page.click("#day-form button[type=submit]")
    said = refusal(page, f"{lang}-no-reason")
    assert ("Вкажіть причину" if uk else "Укажите причину") in said

    # approving a minor
    page.goto(f"{admin}/members?lang={lang}")
    row = page.locator(f"#m{d['ids'][MINOR]}")
    row.locator("summary").click()
    status = row.locator("form").first
    status.locator("select[name=status]").select_option("approved")
    status.locator("input[name=date]").fill("2027-01-10")
    status.locator("input[name=reason]").fill("собрание")
    status.locator("button[type=submit]").click()
    said = refusal(page, f"{lang}-minor")
    assert MINOR in said and ("повнолітній" if uk else "совершеннолетний") in said

    # a Final choice the rules refuse: picking the Central Table team when one best player was named
    page.goto(f"{admin}/seasons/{d['season']}/final?lang={lang}")
    choice = page.locator("#choice-form")
    choice.locator("select[name=kind]").select_option("central_pick")
    choice.locator("select[name=member]").select_option(index=[0, 1])
    choice.locator("input[name=reason]").fill("решение правления")
    choice.locator("button[type=submit]").click()
    said = refusal(page, f"{lang}-final-choice")
    assert ("Адміністрація вибирає склад" if uk else "Администрация выбирает состав") in said

    # the series form: a club game in a duel, then a game that does not exist
    page.goto(f"{admin}/?lang={lang}")
    page.fill("#series-form input[name=name]", "Звёздные войны")
    page.fill("#series-form textarea[name=duels]", f"{d['club_game']}, {d['club_game']}")
    page.click("#series-form button[type=submit]")
    said = refusal(page, f"{lang}-series-club-game")
    assert d["club_game"] in said and ("клубна" if uk else "клубная") in said
    page.fill("#series-form input[name=name]", "Звёздные войны")
    page.fill("#series-form textarea[name=duels]", "нет-такой, и-такой")
    page.click("#series-form button[type=submit]")
    said = refusal(page, f"{lang}-series-unknown")
    assert ("Гри нет-такой немає." if uk else "Игры нет-такой нет.") in said

    assert ok(srv, "GET", "/api/series")["series"] == []  # refused: nothing made
    assert len(ok(srv, "GET", f"/api/seasons/{d['season']}")["days"]) == 1


@pytest.mark.parametrize("lang", ["ru", "uk"])
def test_ignored_games_and_final_problems_in_the_operators_words(page: Page, league: tuple[Server, dict], lang: str):
    """The rating's «ignored» games and the Final page's problems: codes said from the catalogs,
    games by their titles, teams by their words — no English, no ids."""
    srv, d = league
    uk = lang == "uk"
    page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/rating?lang={lang}")
    said = page.locator("#ignored li").all_inner_texts()
    assert said == ([
        "Тренировка без стадии: у гри немає стадії сезону: рейтинг рахує ігри, створені кнопкою «Створити гру з цих "
        "команд» на сторінці проведення.",
        "Игра не в свой день: ігровий день «2027-03-22-sun» — не проведення цього сезону: спершу призначте ігровий день."]
        if uk else [
        "Тренировка без стадии: у игры нет стадии сезона: рейтинг считает игры, созданные кнопкой «Создать игру из этих "
        "команд» на странице проведения.",
        "Игра не в свой день: игровой день «2027-03-22-sun» — не проведение этого сезона: сначала назначьте игровой день."])
    assert not any(LATIN.search(s) for s in said), said
    expect(page.locator("#playing")).to_have_text(("Ще тривають" if uk else "Ещё идут") + ": «Вечерняя игра»")
    page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/final?lang={lang}")
    problems = page.locator("#final-games ~ p.problem").all_inner_texts()
    assert problems == [
        "Команда Клубу: ігор фіналу — 2 («Финал, первая попытка», «Финал, вторая попытка»), а має бути одна; "
        "переможця буде визначено, коли залишиться одна." if uk else
        "Команда Клуба: игр финала — 2 («Финал, первая попытка», «Финал, вторая попытка»), а должна быть одна; "
        "победитель будет определён, когда останется одна."], problems
    assert not any(LATIN.search(s) for s in problems), problems
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{lang}-final-problems.png"), full_page=True)


def test_warnings_name_teams_and_the_log_reads_as_sentences(page: Page, league: tuple[Server, dict]):
    srv, d = league
    page.goto(f"{srv.url}/control/admin/holdings/{d['wed']}?lang=ru")
    team = ok(srv, "GET", f"/api/holdings/{d['wed']}/teams")["teams"][0]
    warn = page.locator("#teams p.warn").first
    expect(warn).to_have_text(f"Меньше четырёх игроков: {team['name']}")
    page.goto(f"{srv.url}/control/admin/seasons/{d['season']}?lang=ru")
    said = page.locator("table.log td.said").all_inner_texts()
    assert "День 1 назначен: 2027-03-07 (воскресенье) и 2027-03-10 (среда)." in said
    assert f"Регистрация № 1: команда «Ежи»: {', '.join(PLAYERS[:6])}." in said
    assert not any("{" in s or '"' in s for s in said), said
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "season-log.png"), full_page=True)


def test_the_rating_prints_dark_on_white_with_a_coloured_legend(page: Page, league: tuple[Server, dict]):
    srv, d = league
    page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/rating?lang=ru")
    page.emulate_media(media="print")
    try:
        for hidden in (".topbar", "#adjust-form", ".links"):
            expect(page.locator(hidden)).to_be_hidden()
        colours = page.evaluate("""() => ({
            body: getComputedStyle(document.body).backgroundColor,
            text: getComputedStyle(document.querySelector('#rating td')).color,
            head: getComputedStyle(document.querySelector('h1')).color,
            swatches: [...document.querySelectorAll('.legend .swatch')].map(s => getComputedStyle(s).borderTopColor),
            lines: [...document.querySelectorAll('#progress-chart polyline')].map(l => l.getAttribute('stroke')),
        })""")
        assert colours["body"] == "rgb(255, 255, 255)"
        assert colours["text"] == colours["head"] == "rgb(0, 0, 0)"
        # each legend entry's colour is its line's (a border: printed even without backgrounds)
        hexes = ["rgb({}, {}, {})".format(*(int(c[i:i + 2], 16) for i in (1, 3, 5))) for c in colours["lines"]]
        assert colours["swatches"] == hexes and len(set(hexes)) == len(hexes) > 1
        page.screenshot(path=str(SHOTS / "rating-print.png"), full_page=True)
        pdf = page.pdf(format="A4")
        assert pdf.startswith(b"%PDF")
    finally:
        page.emulate_media(media="screen")
