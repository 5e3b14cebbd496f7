"""The league's screens in the system Chromium against a real server: the three on-air
graphics (season-rating, final-teams, series) render what the public endpoints say and follow
changes without a reload; the admin rating page draws each player's progress as inline SVG."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.support import PASSWORD, Server

from .helpers import approved_members, club_game, ok, play_club, play_tv, tv_game

pytestmark = pytest.mark.browser

PLAYERS = [f"Игрок {c}" for c in "АБВГДЕЖЗИКЛМ"]
SECRET = "Секретный вопрос"
ON_AIR = re.compile(r"\bis-in\b")


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict]]:
    srv = Server(tmp_path_factory.mktemp("screens") / "data", demo=False).start()
    ids = approved_members(srv, PLAYERS)
    sid = ok(srv, "POST", "/api/seasons", {"name": "Сезон 2026", "qualifying_days": 3}, 201)["id"]
    for day, sunday in ((1, "2026-03-01"), (2, "2026-03-08")):
        ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": day, "sunday": sunday, "confirm": True})
    for day, wins in ((1, [True, True, False, True]), (2, [True, False, True, True])):
        holding = f"{sid}-d{day}-sun"
        for name in PLAYERS:
            ok(srv, "POST", f"/api/holdings/{holding}/registrations", {"member": ids[name]}, 201)
        teams = ok(srv, "POST", f"/api/holdings/{holding}/teams/form", {})["teams"]
        game = club_game(srv, sid, holding, teams, secret=SECRET)
        rounds = [(w, ["t2"] if not w else [], None if w else "t2") for w in wins]
        play_club(srv, game, "t1", rounds, best=teams[0]["players"][0] if day == 1 else teams[1]["players"][0])
    stars = [tv_game(srv, team) for team in ("Звёзды кино", "Звёзды эстрады")]
    play_tv(srv, stars[0], [True, True])
    play_tv(srv, stars[1], [True, False, True])
    xid = ok(srv, "POST", "/api/series", {"name": "Звёздные войны", "duels": [stars]}, 201)["id"]
    yield srv, {"season": sid, "series": xid, "ids": ids}
    srv.stop()


def overlay(browser: Browser, srv: Server, name: str) -> Page:
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(f"{srv.url}/overlays/{name}")
    page.wait_for_function("document.body.classList.contains('ready')")
    return page


def test_graphics_render_public_league_data(chromium: Browser, league: tuple[Server, dict]):
    srv, d = league
    rating = ok(srv, "GET", f"/api/seasons/{d['season']}/rating")["rating"]
    teams = ok(srv, "GET", f"/api/seasons/{d['season']}/final-teams")
    series = ok(srv, "GET", f"/api/series/{d['series']}")
    pages = {name: overlay(chromium, srv, name) for name in ("season-rating", "final-teams", "series")}
    try:
        for name in pages:  # nothing on air before the operator shows it
            expect(pages[name].locator(f'[data-part="{name}"]')).not_to_have_class(ON_AIR)
        ok(srv, "POST", "/api/graphics", {"action": "show", "graphic": "season-rating", "data": {"season": d["season"], "top": 5}})
        ok(srv, "POST", "/api/graphics", {"action": "show", "graphic": "final-teams", "data": {"season": d["season"]}})
        ok(srv, "POST", "/api/graphics", {"action": "show", "graphic": "series", "data": {"series": d["series"]}})

        sr = pages["season-rating"]
        expect(sr.locator('[data-part="season-rating"]')).to_have_class(ON_AIR)
        rows = sr.locator(".sr-row")
        expect(rows).to_have_count(5)
        for i, r in enumerate(rating[:5]):
            expect(rows.nth(i).locator(".sr-name")).to_have_text(r["player"])
            expect(rows.nth(i).locator(".sr-points")).to_have_text(str(r["points"]))
        expect(sr.locator(".sr-sub")).to_have_text("Сезон 2026")

        ft = pages["final-teams"]
        expect(ft.locator('[data-team="central_table"] .ft-player')).to_have_text(
            [m["player"] for m in teams["central_table"]])
        expect(ft.locator('[data-team="club"] .ft-player')).to_have_text([m["player"] for m in teams["club"]])

        sw = pages["series"]
        expect(sw.locator(".sw-duel .sw-entry")).to_have_count(2)
        expect(sw.locator(".sw-entry.won .sw-team")).to_have_text(series["advancing"])
        expect(sw.locator(".sw-title")).to_have_text("Звёздные войны")

        for page in pages.values():  # only public data on screen: never a question
            assert SECRET not in page.content()
            assert page.evaluate("document.body.dataset.connection") == "connected"

        # a correction recorded through the API reaches the graphic without a reload
        last = rating[4]
        ok(srv, "POST", f"/api/seasons/{d['season']}/rating/adjustments",
           {"player": d["ids"][last["player"]], "points": 50, "day": 2, "reason": "апелляция"}, 201)
        expect(rows.nth(0).locator(".sr-name")).to_have_text(last["player"])
        expect(rows.nth(0).locator(".sr-points")).to_have_text(str(last["points"] + 50))

        ok(srv, "POST", "/api/graphics", {"action": "hide", "graphic": "series"})
        expect(sw.locator('[data-part="series"]')).not_to_have_class(ON_AIR)
    finally:
        for page in pages.values():
            page.close()


def test_admin_rating_page_draws_each_players_progress(chromium: Browser, league: tuple[Server, dict]):
    srv, d = league
    rating = ok(srv, "GET", f"/api/seasons/{d['season']}/rating")["rating"]
    page = chromium.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/rating")
        page.fill('input[type="password"]', PASSWORD)  # not logged in: the login form first
        page.click('button[type="submit"]')
        page.goto(f"{srv.url}/control/admin/seasons/{d['season']}/rating?top=20&lang=ru")
        expect(page.locator("h1")).to_have_text("Индивидуальный рейтинг")
        svg = page.locator("svg#progress-chart")
        expect(svg).to_be_visible()
        lines = svg.locator("g.series")
        expect(lines).to_have_count(len(rating))
        for r in rating:
            line = svg.locator(f'g.series[data-player="{r["player"]}"]')
            assert line.get_attribute("data-values") == ",".join(map(str, r["progression"][:2]))
            points = line.locator("polyline").get_attribute("points").split()
            assert len(points) == 1 + 2  # the start and the two game days played (of three)
            ys = [float(p.split(",")[1]) for p in points]
            assert all(a >= b for a, b in zip(ys, ys[1:]))  # points only grow: the line never goes down
        # the best player's line ends highest on the chart (smallest y)
        ends = {r["player"]: float(svg.locator(f'g.series[data-player="{r["player"]}"] polyline')
                                   .get_attribute("points").split()[-1].split(",")[1]) for r in rating}
        assert min(ends, key=ends.get) == rating[0]["player"]
        box = svg.bounding_box()
        assert box and box["width"] > 400 and box["height"] > 200
        expect(page.locator("#rating tbody tr")).to_have_count(len(rating))
        expect(page.locator("#rating tbody tr").first.locator("td").nth(1)).to_contain_text(rating[0]["player"])
        assert page.locator("#rating-csv").get_attribute("href").endswith("rating.csv?lang=ru")
    finally:
        page.close()
