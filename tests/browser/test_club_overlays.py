"""The club game's on-air graphics in the real system Chromium against a real server process.

Each club graphic (`central-table`, `club-tables`, `draw`, `game-rating`, `best-player`) loads
with a transparent background and no console errors, keeps its text at 28 px or more inside
the 90 % safe area, and shows a change made through the HTTP API within a second: a team
seated, the club tables' answers, the rating reordered (rows slide), the draw landing on the
team the server drew, the best player after the experts' win. The tv `scoreboard` and `table`
follow a club game too (the scoreboard names the Central Table team).

Screenshots go to $CHGK_SCREENSHOT_DIR when set
(`CHGK_SCREENSHOT_DIR=docs/screenshots python -m pytest tests/browser/test_club_overlays.py -k screenshots`),
else to a temporary folder.
"""
from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.browser.helpers import (QUICK_SPIN, TRANSPARENT, WAIT_MS, Tab, backgrounds, on_air, outside_safe_area, screenshot, settle,
                                   screenshot_dir, small_text, text_of, wait_js, wait_on_air, wait_revealed,
                                   wait_still)
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CLUB_GRAPHICS = ["central-table", "club-tables", "draw", "game-rating", "best-player"]
SPIN_MS = 4600  # static/overlays/draw.js

TEAM_NAMES = ["Шесть сов", "Ландау", "Братья Карамазовы", "Ночной дозор", "Гравитация", "Эрудит",
              "Полосатый рейс", "Сфинкс", "Ленинградцы", "Белые ночи", "Невский проспект", "Зодиак",
              "Мосты", "Пулково", "Лабиринт", "Квант", "Кронверк", "Аврора"]
FIRST_NAMES = ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор"]
SURNAMES = ["Смирнова", "Орлов", "Зайцева", "Лебедев", "Крылова", "Соколов", "Морозова", "Волков",
            "Павлова", "Козлов", "Новикова", "Фёдоров", "Михайлова", "Алексеев", "Ершова", "Никитин",
            "Белова", "Громов"]


# --- the server and the club game --------------------------------------------------------------

def players(i: int) -> list[str]:
    """Six distinct names for team i (a best player must be told apart from other teams')."""
    return [f"{first} {SURNAMES[(i + k) % len(SURNAMES)]}" for k, first in enumerate(FIRST_NAMES)]


def club_spec(n: int = 6, *, target: int = 6) -> dict:
    # Each game gets its own game day: lost rounds carry over between the games of one day.
    return {
        "rules": "club", "title": "Игра 1", "target": target,
        "game_day": f"2026-03-01-sun-{uuid.uuid4().hex[:8]}",
        "timers": {"minute": 60_000},
        "spin": QUICK_SPIN,  # the top's turn is tests/browser/test_reveal.py's; the club draw keeps its own
        "teams": [{"id": f"t{i + 1}", "name": TEAM_NAMES[i], "players": players(i)} for i in range(n)],
    }


def new_club_game(server: Server, n: int = 6, *, target: int = 6) -> str:
    return server.create(club_spec(n, target=target), on_air=True)


def minute_running(server: Server, n: int, *, seated: str, sector: int) -> str:
    """A club game of n teams on air: `seated` at the Central Table, the minute running on `sector`."""
    game = new_club_game(server, n)
    server.play(game, "seat_team", team=seated)
    server.play(game, "spin", landed=sector)
    server.play(game, "start_timer")
    return game


def play_question(server: Server, game: str, sector: int, club: list[str], correct: bool) -> dict:
    """One question: spin, the minute, the club tables' answers, the Central Table's verdict."""
    server.play(game, "spin", landed=sector)
    server.play(game, "start_timer")
    server.play(game, "club_answers", correct=club)
    return server.play(game, "judge", correct=correct)


# --- states in which each graphic has something to show -----------------------------------------

def staged(server: Server, name: str, n: int = 18) -> str:
    """A club game of n teams put in a state where graphic `name` shows something; returns its id."""

    def some(*numbers: int) -> list[str]:
        return [f"t{k}" for k in numbers if k <= n]

    if name == "best-player":
        game = new_club_game(server, n, target=3)
        server.play(game, "seat_team", team="t3")
        for sector in (1, 2, 3):
            play_question(server, game, sector, some(1, 7, 12), True)
        server.play(game, "best_player", player=players(2)[1])
        return game
    game = new_club_game(server, n)
    if name == "draw":
        return game  # no team seated yet: every team is a candidate for the first seat

    # Table 4 takes a question, loses the next one and leaves; table 6, which answered it, sits.
    server.play(game, "seat_team", team="t4")
    play_question(server, game, 1, some(1, 2, 6, 9, 13), True)
    play_question(server, game, 5, some(2, 3, 6, 11, 15, 17), False)
    server.play(game, "seat_team", team="t6")
    play_question(server, game, 11, some(2, 3, 8, 11, 16), True)
    if name in ("club-tables", "game-rating"):
        server.play(game, "spin", landed=8)
        server.play(game, "start_timer")
        server.play(game, "club_answers", correct=some(2, 4, 5, 8, 10, 11, 14, 16, 18))
    return game


# --- tests: every club graphic -------------------------------------------------------------------

@pytest.mark.parametrize("name", CLUB_GRAPHICS)
def test_club_overlay_loads_transparent_large_and_safe(shared_server: Server, tab: Tab, name: str) -> None:
    game = staged(shared_server, name)
    page = tab.open(f"{shared_server.url}/overlays/{name}")
    wait_js(page, "game => document.body?.dataset.game === game", game)
    wait_on_air(page, name)
    settle(page)
    assert backgrounds(page) == TRANSPARENT
    assert small_text(page) == []
    assert outside_safe_area(page) == []
    assert tab.errors == []


@pytest.mark.parametrize("lang,label", [("uk", "Центральний стіл"), ("en", "Central Table")])
def test_club_overlays_speak_the_page_language(shared_server: Server, tab: Tab, lang: str, label: str) -> None:
    game = new_club_game(shared_server, 4)
    shared_server.play(game, "seat_team", team="t2")
    page = tab.open(f"{shared_server.url}/overlays/central-table?lang={lang}&theme=light")
    assert text_of(page, ".ct-kicker") == label
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    assert tab.errors == []


def test_central_table_shows_the_seated_team_within_a_second(shared_server: Server, tab: Tab) -> None:
    game = new_club_game(shared_server, 6)
    page = tab.open(f"{shared_server.url}/overlays/central-table")
    assert not on_air(page, "central-table")  # nobody at the Central Table yet
    shared_server.play(game, "seat_team", team="t3")
    wait_on_air(page, "central-table")
    assert text_of(page, "[data-ref=name]") == "Братья Карамазовы"
    assert page.eval_on_selector_all(".ct-players li", "els => els.map(e => e.textContent)") == players(2)

    # The team loses its round: the strap goes out with the seat free ...
    play_question(shared_server, game, 2, ["t5"], False)
    wait_js(page, "!document.querySelector('[data-part=central-table]').classList.contains('is-in')")
    assert text_of(page, "[data-ref=name]") == "Братья Карамазовы"  # the old names leave with the strap
    # ... and comes back with the next team, never showing the new name on the old strap.
    shared_server.play(game, "seat_team", team="t5")
    wait_js(page, "document.querySelector('[data-ref=name]').textContent === 'Гравитация'")
    wait_on_air(page, "central-table")
    assert tab.errors == []


def test_club_tables_mark_this_questions_correct_answers(shared_server: Server, tab: Tab) -> None:
    game = minute_running(shared_server, 6, seated="t1", sector=3)
    page = tab.open(f"{shared_server.url}/overlays/club-tables")
    assert on_air(page, "club-tables")
    tiles = "els => els.filter(e => e.classList.contains(%r)).map(e => e.dataset.team)"
    assert page.eval_on_selector_all(".ctb-tile", "els => els.map(e => e.textContent)") == [
        f"{i + 1}{TEAM_NAMES[i]}" for i in range(6)]
    assert page.eval_on_selector_all(".ctb-tile", tiles % "ok") == []
    assert page.eval_on_selector_all(".ctb-tile", tiles % "central") == ["t1"]
    assert text_of(page, "[data-ref=count]") == "Ответы столов ещё не внесены"
    # The sector shows once the top's arrow has stopped on it (round.reveal_at).
    wait_js(page, "document.querySelector('[data-ref=sector]').textContent === 'Сектор 3'")

    shared_server.play(game, "club_answers", correct=["t2", "t4"])
    wait_js(page, "document.querySelectorAll('.ctb-tile.ok').length === 2")
    assert page.eval_on_selector_all(".ctb-tile", tiles % "ok") == ["t2", "t4"]
    assert page.eval_on_selector_all(".ctb-tile", tiles % "miss") == ["t3", "t5", "t6"]
    assert text_of(page, "[data-ref=count]") == "Ответили верно: 2 из 5"
    # The check really pops in (transform and opacity), it does not just appear.
    wait_js(page, "getComputedStyle(document.querySelector('.ctb-tile.ok .ctb-ok')).opacity === '1'")

    # A correction replaces the list.
    shared_server.play(game, "club_answers", correct=["t5"])
    wait_js(page, "document.querySelector('.ctb-tile[data-team=t5]').classList.contains('ok')")
    assert page.eval_on_selector_all(".ctb-tile", tiles % "ok") == ["t5"]

    # The Central Table loses its round: its table is marked, the seat is free.
    shared_server.play(game, "judge", correct=False)
    wait_js(page, "document.querySelector('.ctb-tile[data-team=t1]').classList.contains('lost')")
    assert page.eval_on_selector_all(".ctb-tile", tiles % "central") == []
    shared_server.play(game, "seat_team", team="t5")
    wait_js(page, "document.querySelector('.ctb-tile[data-team=t5]').classList.contains('central')")

    # The next spin clears the marks.
    shared_server.play(game, "spin", landed=4)
    wait_js(page, "document.querySelectorAll('.ctb-tile.ok').length === 0")
    wait_js(page, "document.querySelector('[data-ref=sector]').textContent === 'Сектор 4'")
    assert tab.errors == []


ROW_ORDER_JS = "() => [...document.querySelectorAll('.gr-row')].map(r => r.dataset.team)"
# Where a row is drawn, relative to its list (the part's own entrance does not count).
ROW_TOP_JS = """id => document.querySelector(`.gr-row[data-team=${id}]`).getBoundingClientRect().top
  - document.querySelector('.gr-list').getBoundingClientRect().top"""
ROW_JS = """id => { const r = document.querySelector(`.gr-row[data-team=${id}]`);
  return [...r.children].map(c => c.textContent); }"""


# Records every slide the board starts (Element.animate on a row): the team, the slide's first
# keyframe and where the row is drawn the moment the slide starts, relative to its list.
SLIDES_JS = """() => {
  window.__slides = [];
  const animate = Element.prototype.animate;
  Element.prototype.animate = function (keyframes, options) {
    const a = animate.call(this, keyframes, options);
    if (this.matches('.gr-row')) window.__slides.push({ team: this.dataset.team, from: keyframes[0].transform,
      top: this.getBoundingClientRect().top - document.querySelector('.gr-list').getBoundingClientRect().top });
    return a;
  };
}"""


def test_game_rating_counts_the_central_table_twice_and_reorders(shared_server: Server, tab: Tab) -> None:
    game = new_club_game(shared_server, 6)
    shared_server.play(game, "seat_team", team="t1")
    play_question(shared_server, game, 1, ["t4"], True)
    page = tab.open(f"{shared_server.url}/overlays/game-rating")
    assert on_air(page, "game-rating")
    # Place, team, correct, at the Central Table, points: the Central Table's answer counts twice.
    assert page.evaluate(ROW_JS, "t1") == ["1", "Шесть сов", "1", "1", "2"]
    assert page.evaluate(ROW_JS, "t4") == ["2", "Ночной дозор", "1", "0", "1"]
    assert page.evaluate(ROW_ORDER_JS) == ["t1", "t4", "t2", "t3", "t5", "t6"]
    assert page.evaluate(ROW_JS, "t6")[0] == "3–6"
    settle(page)
    wait_still(page, ".gr-row")
    start = page.evaluate(ROW_TOP_JS, "t6")
    page.evaluate(SLIDES_JS)

    # Table 6 answers in writing and climbs from the last place to share the second. The spin's
    # round is drawn again when its arrow stops (reveal_at): wait for that first, so that the
    # board's only change is the answer's.
    shared_server.play(game, "spin", landed=2)
    rev = shared_server.play(game, "start_timer")["rev"]
    wait_js(page, "rev => Number(document.body?.dataset.rev) >= rev", rev)
    wait_revealed(page, SPIN_MS + WAIT_MS)
    shared_server.play(game, "club_answers", correct=["t6"])
    wait_js(page, "([o, id]) => JSON.stringify(o) === JSON.stringify((" + ROW_ORDER_JS + ")())"
                  " && window.__slides.some(s => s.team === id)", [["t1", "t4", "t6", "t2", "t3", "t5"], "t6"])
    # It slides there: a transform carries it from where it was on screen (three rows, 186 px,
    # down from its new place at the slide's first frame); the three it passes step down one row.
    slides: dict[str, dict] = {}
    for s in page.evaluate("window.__slides"):       # each row's first slide (a redraw may restart one)
        slides.setdefault(s["team"], s)
    assert sorted(slides) == ["t2", "t3", "t5", "t6"], slides
    dy = {team: float(re.fullmatch(r"translate\(0px, (-?[\d.]+)px\)", s["from"]).group(1)) for team, s in slides.items()}
    assert dy == {"t6": pytest.approx(62 * 3, abs=1), "t2": pytest.approx(-62, abs=1),
                  "t3": pytest.approx(-62, abs=1), "t5": pytest.approx(-62, abs=1)}, dy
    assert slides["t6"]["top"] == pytest.approx(start, abs=1)   # drawn where it was as the slide starts
    assert page.evaluate(ROW_JS, "t6")[0] == "2–3"
    assert page.evaluate(ROW_JS, "t4")[0] == "2–3"
    wait_still(page, ".gr-row")                                  # the reorder has ended
    end = page.evaluate(ROW_TOP_JS, "t6")
    assert end == pytest.approx(start - 62 * 3, abs=1)

    shared_server.play(game, "judge", correct=True)
    wait_js(page, "id => document.querySelector(`.gr-row[data-team=${id}] .gr-gain`).textContent === '4'", "t1")
    assert tab.errors == []


@pytest.mark.parametrize("lang,day", [("ru", "Игровой день 2 · среда"), ("uk", "Ігровий день 2 · середа"),
                                      ("en", "Game day 2 · Wednesday")])
def test_game_rating_names_a_league_game_day_in_the_page_language(shared_server: Server, tab: Tab,
                                                                    lang: str, day: str) -> None:
    """A league holding's id as the game day («s1-d2-wed») is said in words from the catalogs."""
    spec = {**club_spec(4), "game_day": f"s{uuid.uuid4().hex[:8]}-d2-wed"}
    game = shared_server.create(spec, on_air=True)
    page = tab.open(f"{shared_server.url}/overlays/game-rating?lang={lang}")
    wait_js(page, "game => document.body?.dataset.game === game", game)
    assert text_of(page, "[data-ref=sub]") == f"Игра 1 · {day}"
    assert tab.errors == []


def test_game_rating_splits_twenty_teams_in_two_columns(shared_server: Server, tab: Tab) -> None:
    game = new_club_game(shared_server, 18)
    shared_server.play(game, "seat_team", team="t9")
    page = tab.open(f"{shared_server.url}/overlays/game-rating")
    wait_on_air(page, "game-rating")
    settle(page)
    assert page.evaluate("document.querySelector('[data-part=game-rating]').classList.contains('two')")
    assert page.evaluate("document.querySelectorAll('.gr-colhead').length") == 2
    assert page.evaluate("[...document.querySelectorAll('.gr-row')].map(r => Math.round(r.offsetLeft))"
                         ".filter((x, i, a) => a.indexOf(x) === i).length") == 2
    assert small_text(page) == []
    assert outside_safe_area(page) == []
    assert tab.errors == []


def test_draw_spins_and_lands_on_the_team_the_server_drew(shared_server: Server, tab: Tab) -> None:
    game = new_club_game(shared_server, 5)
    page = tab.open(f"{shared_server.url}/overlays/draw")
    # The seat is free: every team is a candidate and nobody has been drawn.
    assert on_air(page, "draw")
    assert page.eval_on_selector_all(".dr-chip", "els => els.map(e => e.textContent)") == TEAM_NAMES[:5]
    assert text_of(page, "[data-ref=reel]") == "?"
    assert text_of(page, "[data-ref=title]") == "Кто сядет за Центральный стол?"
    # the mark pulses, not its row: the compositor draws the pulsing box again every frame
    pulsing = page.evaluate("""() => document.getAnimations().filter((a) => a.effect.getComputedTiming().iterations
        === Infinity).map((a) => { const r = a.effect.target.getBoundingClientRect(); return [r.width, r.height]; })""")
    assert len(pulsing) == 1 and pulsing[0][0] < 200 and pulsing[0][1] <= 100, pulsing

    state = shared_server.play(game, "seat_team")  # the server draws among the five
    drawn = state["central"]["team"]
    name = TEAM_NAMES[int(drawn[1:]) - 1]
    wait_js(page, "document.querySelector('[data-part=draw]').dataset.mode === 'spinning'")
    assert page.evaluate("document.querySelector('[data-ref=reel]').getAnimations().length") == 1
    assert text_of(page, "[data-ref=title]") == "Волчок выбирает"
    # The reel passes through the candidates, lighting their chips on the way.
    seen: set[str] = set()
    for _ in range(12):
        hot = page.evaluate("document.querySelector('.dr-chip.hot')?.dataset.team ?? null")
        if hot:
            seen.add(hot)
        page.wait_for_timeout(60)
    assert len(seen) >= 2, seen
    wait_js(page, "document.querySelector('[data-part=draw]').dataset.mode === 'landed'", timeout_ms=SPIN_MS + WAIT_MS)
    assert page.evaluate("document.querySelector('[data-part=draw]').dataset.landed") == drawn
    assert text_of(page, ".dr-item.won") == name
    assert page.eval_on_selector_all(".dr-chip.chosen", "els => els.map(e => e.textContent)") == [name]
    assert text_of(page, "[data-ref=title]") == "За Центральный стол садится"
    # The chosen name is where the frame is: the middle row of the window (read once the landing's
    # pop and the neighbours' fade have ended and the reel stands still).
    settle(page)
    wait_still(page, ".dr-window, .dr-item.won")
    middle = page.evaluate("""() => {
        const w = document.querySelector('.dr-window').getBoundingClientRect();
        const i = document.querySelector('.dr-item.won').getBoundingClientRect();
        return Math.round((i.top + i.height / 2) - (w.top + w.height / 2)); }""")
    assert abs(middle) <= 1
    assert on_air(page, "draw")

    # The drawn team loses its round; one club table answered correctly: it just sits, no spin.
    play_question(shared_server, game, 1, ["t2" if drawn != "t2" else "t3"], False)
    single = "t2" if drawn != "t2" else "t3"
    wait_js(page, "document.querySelector('[data-part=draw]').dataset.mode === 'waiting'")
    assert text_of(page, "[data-ref=reel]") == TEAM_NAMES[int(single[1:]) - 1]
    shared_server.play(game, "seat_team")
    wait_js(page, "id => document.querySelector('[data-part=draw]').dataset.landed === id", single)
    assert page.evaluate("document.querySelector('[data-ref=reel]').getAnimations().length") == 0
    # The next round takes the draw off the air.
    shared_server.play(game, "spin", landed=2)
    wait_js(page, "!document.querySelector('[data-part=draw]').classList.contains('is-in')")
    assert tab.errors == []


def test_draw_waits_for_the_club_tables_answers_after_a_lost_round(shared_server: Server, tab: Tab) -> None:
    game = minute_running(shared_server, 5, seated="t1", sector=1)
    page = tab.open(f"{shared_server.url}/overlays/draw")
    assert not on_air(page, "draw")  # a team is seated
    shared_server.play(game, "judge", correct=False)
    # The seat is free but who may take it depends on the tables' answers: nothing yet.
    page.wait_for_timeout(400)
    assert not on_air(page, "draw")
    shared_server.play(game, "club_answers", correct=["t3", "t4"])
    wait_on_air(page, "draw")
    assert page.eval_on_selector_all(".dr-chip", "els => els.map(e => e.dataset.team)") == ["t3", "t4"]
    assert tab.errors == []


def test_best_player_appears_after_the_experts_win(shared_server: Server, tab: Tab) -> None:
    game = new_club_game(shared_server, 4, target=2)
    shared_server.play(game, "seat_team", team="t2")
    play_question(shared_server, game, 1, [], True)
    page = tab.open(f"{shared_server.url}/overlays/best-player")
    assert not on_air(page, "best-player")
    state = play_question(shared_server, game, 2, ["t4"], True)
    assert (state["status"], state["winner"]) == ("finished", "experts")
    page.wait_for_timeout(300)
    assert not on_air(page, "best-player")  # the host has not named anyone yet
    shared_server.play(game, "best_player", player=players(1)[3])
    wait_on_air(page, "best-player")
    assert text_of(page, "[data-ref=name]") == players(1)[3]
    assert text_of(page, "[data-ref=team]") == "Ландау"
    assert text_of(page, "[data-ref=score]") == "Победа знатоков · 2 : 0"
    assert text_of(page, ".bp-kicker") == "Лучший игрок Центрального стола"
    assert page.evaluate("parseFloat(getComputedStyle(document.querySelector('[data-ref=name]')).fontSize)") == 132
    # A long name is set smaller so that it fits the safe area, never cut; a very long one wraps.
    fit_js = """() => { const n = document.querySelector('[data-ref=name]');
        return [n.scrollWidth <= n.clientWidth, parseFloat(getComputedStyle(n).fontSize), n.classList.contains('wrap')]; }"""
    update_js = "name => window.chgkOverlay.update({...window.chgkOverlay.state, best_player: name})"
    page.evaluate(update_js, "Александра Константинопольская")
    ok, size, wrapped = page.evaluate(fit_js)
    assert ok and 72 <= size < 132 and not wrapped, (ok, size, wrapped)
    longest = "Александра-Мария Константинопольская-Верхневолжская фон Лихтенштейн-Гогенцоллерн"
    page.evaluate(update_js, longest)
    assert text_of(page, "[data-ref=name]") == longest
    ok, size, wrapped = page.evaluate(fit_js)
    assert ok and 64 <= size <= 96 and wrapped, (ok, size, wrapped)
    settle(page)
    assert outside_safe_area(page) == []
    # Undo takes the name back: the graphic goes out.
    r = shared_server.call("POST", f"/api/games/{game}/undo")
    assert r.status_code == 200, r.text
    wait_js(page, "!document.querySelector('[data-part=best-player]').classList.contains('is-in')")
    assert tab.errors == []


def test_scoreboard_and_table_follow_a_club_game(shared_server: Server, tab: Tab, chromium: Browser) -> None:
    game = new_club_game(shared_server, 5)
    shared_server.play(game, "seat_team", team="t3")
    page = tab.open(f"{shared_server.url}/overlays/scoreboard")
    assert on_air(page, "scoreboard")
    assert text_of(page, "[data-ref=team]") == "Братья Карамазовы"
    assert page.evaluate("document.querySelectorAll('.sb-badge.is-on').length") == 0  # no tv badges
    play_question(shared_server, game, 1, ["t1"], True)
    wait_js(page, "document.querySelector('[data-ref=experts]').textContent === '1'")
    play_question(shared_server, game, 2, ["t1"], False)
    wait_js(page, "document.querySelector('[data-ref=viewers]').textContent === '1'")
    shared_server.play(game, "seat_team", team="t1")
    wait_js(page, "document.querySelector('[data-ref=team]').textContent === 'Шесть сов'")
    assert tab.errors == []

    table = Tab(chromium)
    try:
        tpage = table.open(f"{shared_server.url}/overlays/table")
        assert on_air(tpage, "table")
        assert tpage.eval_on_selector_all(".tb-sector", "els => els.length") == 13
        assert "won-experts" in tpage.get_attribute(".tb-sector[data-n='1']", "class")
        assert "won-viewers" in tpage.get_attribute(".tb-sector[data-n='2']", "class")
        assert table.errors == []
    finally:
        table.close()


# --- screenshots ---------------------------------------------------------------------------------

def test_screenshots_of_the_club_graphics(shared_server: Server, chromium: Browser, tmp_path: Path) -> None:
    out = screenshot_dir(tmp_path)
    for name in CLUB_GRAPHICS:
        game = staged(shared_server, name, n=16)
        t = Tab(chromium)
        try:
            page = t.open(f"{shared_server.url}/overlays/{name}")
            if name == "draw":  # the draw after its spin: the team the server drew, the others dimmed
                shared_server.play(game, "seat_team")
                wait_js(page, "document.querySelector('[data-part=draw]').dataset.mode === 'landed'",
                        timeout_ms=SPIN_MS + WAIT_MS)
            wait_on_air(page, name)
            wait_revealed(page)
            settle(page)
            screenshot(page, out, name)
            assert t.errors == []
        finally:
            t.close()
