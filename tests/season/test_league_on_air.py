"""The league's boards on air (issue 25, item 9), read as Chromium draws them (tests/browser/drawn.py):
`season-rating` asked for 30 draws 30 players, and «Константин Преображенский-Милославский» in its
two-column mode whole (smaller, then on two lines — no «…», nothing cut, inside the safe area);
`game-rating` draws a long team name whole and the game day in words, not the holding's id;
`final-teams` draws the six who played the Final, not the proposed Club team."""
from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser import drawn
from tests.browser.helpers import wait_live
from tests.support import Server

from .helpers import FAST, approved_members, ok, play_club

pytestmark = pytest.mark.browser

LONG_PLAYER = "Константин Преображенский-Милославский"
LONG_TEAM = "Клуб знатоков имени Владимира Ворошилова при Доме учёных"
PLAYERS = [LONG_PLAYER] + [f"Игрок {i:02d}" for i in range(1, 32)]  # 32 who played
ON_AIR = re.compile(r"\bis-in\b")
SHOTS = Path(os.environ.get("CHGK_SCREENSHOT_DIR") or tempfile.gettempdir()) / "league-on-air"


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict]]:
    srv = Server(tmp_path_factory.mktemp("on-air") / "data", demo=False).start()
    ids = approved_members(srv, PLAYERS)
    sid = ok(srv, "POST", "/api/seasons", {"name": "Сезон 2027", "qualifying_days": 3}, 201)["id"]
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2027-03-07"})
    holding = f"{sid}-d1-sun"
    for p in PLAYERS:
        ok(srv, "POST", f"/api/holdings/{holding}/registrations", {"member": ids[p]}, 201)
    teams = ok(srv, "POST", f"/api/holdings/{holding}/teams/form", {})["teams"]
    # the long name's team answers at the Central Table: its players lead the rating
    lead = next(t for t in teams if LONG_PLAYER in t["players"])
    ok(srv, "PUT", f"/api/holdings/{holding}/teams/{lead['id']}", {"name": LONG_TEAM, "reason": "полное название"})
    teams = ok(srv, "GET", f"/api/holdings/{holding}/teams")["teams"]
    spec = {"rules": "club", "title": "Первый день", "target": 3, "season": sid, "stage": "qualifying",
            "game_day": holding, "timers": FAST,
            "teams": [{"id": t["id"], "name": t["name"], "players": t["players"]} for t in teams]}
    game = srv.create(spec, on_air=True)
    others = [t["id"] for t in teams if t["id"] != lead["id"]]
    play_club(srv, game, lead["id"], [(True, others[:1], None), (True, others[1:3], None), (True, [], None)],
              best=LONG_PLAYER)
    rating = ok(srv, "GET", f"/api/seasons/{sid}/rating")["rating"]
    assert len(rating) == len(PLAYERS) and LONG_PLAYER in [r["player"] for r in rating[:6]]
    yield srv, {"season": sid, "game": game, "ids": ids, "rating": rating, "lead": lead["id"]}
    srv.stop()


def overlay(chromium: Browser, srv: Server, name: str) -> Page:
    page = chromium.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(f"{srv.url}/overlays/{name}")
    wait_live(page, 30_000)  # Playwright's default, as before
    drawn.prepare(page)
    return page


def at_rest(page: Page, part: str) -> drawn.Drawn:
    """What is drawn once the part is on air and its entrance and fitting are over."""
    expect(page.locator(f'[data-part="{part}"]')).to_have_class(ON_AIR)
    page.wait_for_function("""(p) => {
        const el = document.querySelector(`[data-part="${p}"]`);
        return document.fonts.status === 'loaded' && el.getAnimations({subtree: true}).every(a => a.playState !== 'running');
    }""", arg=part)
    return drawn.read(page)


def whole(d: drawn.Drawn, part: str, text: str) -> drawn.Text:
    found = [t for t in d.part_texts(part) if t.text == text]
    assert found, f"«{text}» is not drawn in {part}: {[t.text for t in d.part_texts(part)]}"
    t = found[0]
    assert not t.ellipsis and t.clipped <= 0.02, f"{t}: cut {t.clipped:.0%}, ellipsis {t.ellipsis}"
    return t


def lines(t: drawn.Text) -> int:
    return len({round(r[1]) for r in t.rects})


def clean(d: drawn.Drawn) -> None:
    assert drawn.ellipses(d) == []
    assert drawn.cut_texts(d) == []
    assert drawn.outside_safe(d) == []
    assert drawn.overlaps(d) == []


def test_season_rating_shows_thirty_and_fits_the_long_name(chromium: Browser, league: tuple[Server, dict]):
    srv, d = league
    page = overlay(chromium, srv, "season-rating")
    try:
        ok(srv, "POST", "/api/graphics", {"action": "show", "graphic": "season-rating",
                                          "data": {"season": d["season"], "top": 30}})
        expect(page.locator(".sr-row")).to_have_count(30)
        seen = at_rest(page, "season-rating")
        names = [r["player"] for r in d["rating"][:30]]
        drawn_names = [t.text for t in seen.part_texts("season-rating") if t.text in set(PLAYERS)]
        assert sorted(drawn_names) == sorted(names)  # all thirty asked for, drawn
        long = whole(seen, "season-rating", LONG_PLAYER)
        size = page.evaluate(f"""parseFloat(getComputedStyle([...document.querySelectorAll('.sr-name')]
            .find(e => e.textContent === {LONG_PLAYER!r})).fontSize)""")
        assert lines(long) <= 2 and size >= 16
        clean(seen)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "season-rating-30.png"))
    finally:
        ok(srv, "POST", "/api/graphics", {"action": "hide", "graphic": "season-rating"})
        page.close()


def test_game_rating_fits_a_long_team_and_names_the_day(chromium: Browser, league: tuple[Server, dict]):
    srv, d = league
    page = overlay(chromium, srv, "game-rating")
    try:
        seen = at_rest(page, "game-rating")
        whole(seen, "game-rating", LONG_TEAM)
        assert [t.text for t in seen.part_texts("game-rating") if t.ref == "sub"] == [
            "Первый день", "·", "Игровой день 1 · воскресенье"]  # drawn, each text node trimmed
        assert "s1-d1-sun" not in page.locator('[data-part="game-rating"]').inner_text()
        clean(seen)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "game-rating.png"))
    finally:
        page.close()


def test_final_teams_shows_the_six_who_played(chromium: Browser, league: tuple[Server, dict]):
    srv, d = league
    proposed = ok(srv, "GET", f"/api/seasons/{d['season']}/final-teams")
    club = [m["player"] for m in proposed["club"]]
    central = {m["player"] for m in proposed["central_table"]}
    # the Club team as it plays: six from the rating, one of them not in the proposal
    bench = [r["player"] for r in d["rating"] if r["player"] not in central and r["player"] not in club]
    played = club[:5] + bench[:1]
    assert played != club and len(played) == 6
    page = overlay(chromium, srv, "final-teams")
    try:
        srv.create({"rules": "tv", "title": "Финал", "target": 2, "timers": FAST, "season": d["season"],
                            "stage": "final", "final_team": "club", "experts": {"name": "Команда Клуба", "players": played}})
        ok(srv, "POST", "/api/graphics", {"action": "show", "graphic": "final-teams", "data": {"season": d["season"]}})
        expect(page.locator('[data-team="club"] .ft-player')).to_have_text(played)
        seen = at_rest(page, "final-teams")
        for name in played:
            whole(seen, "final-teams", name)
        clean(seen)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "final-teams.png"))
    finally:
        ok(srv, "POST", "/api/graphics", {"action": "hide", "graphic": "final-teams"})
        page.close()
