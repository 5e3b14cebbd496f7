"""Right-to-left names (ЧГК is played in Israel too) in the real system Chromium over a real
server: teams and players named in Hebrew and Arabic, with digits in them, in every strap and
table that writes names — the lower-third, the scoreboard, blitz, the result, the Central Table,
the club tables, the game rating, the best player, the league's three tables, the audience page
and the panel's lists. Each name sits in its own bidi isolate (<bdi>, computed `direction: rtl`,
`unicode-bidi: isolate`) and reads right to left (its first letter drawn right of its last),
while the boxes around it — places, table numbers, scores — keep their left-to-right order.

Screenshots go to $CHGK_SCREENSHOT_DIR when set (docs/screenshots), else to a temporary folder.
"""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.helpers import PanelPage, Tab, screenshot, screenshot_dir, settle, wait_js, wait_on_air
from tests.browser.test_overlays import game_spec
from tests.season.helpers import approved_members, club_game, ok, play_club, play_tv, tv_game
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

EXPERTS = "מכבי תל אביב 7"            # a team name ending in a number
PLAYERS = ["דנה כהן", "يوسف حداد", "Анна", "Борис", "Вера", "Глеб"]
TEAMS = ["מכבי תל אביב 7", "فريق 7", "Ландау", "הפועל 3", "Эрудит", "نجوم 12"]
RTL_LETTER = "[\\u0590-\\u08ff]"

# For each element of `sel` (or the element itself when it is a <bdi>): the name's isolate — its
# text, computed direction and unicode-bidi — and whether its first RTL letter is drawn to the
# right of its last one (the name reads right to left).
NAMES_JS = """([sel, letter]) => [...document.querySelectorAll(sel)].map(el => {
  const b = el.matches('bdi') ? el : el.querySelector('bdi');
  if (!b) return {text: el.textContent, bdi: false};
  const cs = getComputedStyle(b);
  const node = document.createTreeWalker(b, NodeFilter.SHOW_TEXT).nextNode();
  const at = [...node.data].map((c, i) => new RegExp(letter).test(c) ? i : -1).filter(i => i >= 0);
  const box = i => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
                     return r.getBoundingClientRect(); };
  return {text: b.textContent, bdi: true, direction: cs.direction, isolate: cs.unicodeBidi,
          rtl: at.length > 1 ? box(at[0]).left > box(at[at.length - 1]).left : null};
})"""

# Within each `scope` element, the box of the first match of each selector.
BOXES_JS = """([scope, sels]) => [...document.querySelectorAll(scope)].map(row =>
  sels.map(s => { const el = row.querySelector(s); if (!el) return null;
                  const r = el.getBoundingClientRect();
                  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }))"""


def names(page: Page, sel: str) -> list[dict]:
    got = page.evaluate(NAMES_JS, [sel, RTL_LETTER])
    assert got, f"nothing matches {sel}"
    return got


def assert_rtl_names(page: Page, sel: str, expected: list[str] | None = None) -> None:
    """Every name under `sel` is isolated; those with RTL letters are `direction: rtl` and drawn
    right to left, the others `ltr`."""
    got = names(page, sel)
    if expected is not None:
        assert [g["text"] for g in got] == expected, got
    for g in got:
        assert g["bdi"] and g["isolate"] == "isolate", (sel, g)
        rtl = g["rtl"] is not None
        assert g["direction"] == ("rtl" if rtl else "ltr") and (g["rtl"] or not rtl), (sel, g)
    assert any(g["rtl"] for g in got), (sel, got)


def label_before_name(page: Page, selector: str) -> bool:
    """The element's leading label (its first text node) is drawn wholly left of its <bdi> name."""
    return page.evaluate("""(sel) => {
      const el = document.querySelector(sel), label = el.firstChild, r = document.createRange();
      r.selectNodeContents(label);
      return label.nodeType === 3 && r.getBoundingClientRect().right <= el.querySelector('bdi').getBoundingClientRect().left + 0.5;
    }""", selector)


def assert_in_order(page: Page, scope: str, sels: list[str]) -> None:
    """In each `scope`, the boxes of `sels` follow one another as an LTR page reads: each one
    either right of the one before on the same line, or on a line below it."""
    rows = page.evaluate(BOXES_JS, [scope, sels])
    assert rows, f"nothing matches {scope}"
    for boxes in rows:
        assert None not in boxes, (scope, sels, boxes)
        for a, b in zip(boxes, boxes[1:]):
            below = b["top"] >= a["bottom"] - 1
            right = b["left"] >= a["right"] - 0.5 and b["top"] < a["bottom"] and a["top"] < b["bottom"]
            assert below or right, (scope, sels, a, b)


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("rtl") / "data", demo=False).start()
    yield s
    s.stop()


def rtl_tv_game(srv: Server, target: int = 6) -> str:
    spec = game_spec(target=target)
    spec["experts"] = {"name": EXPERTS, "players": PLAYERS, "captain": PLAYERS[0]}
    for s in spec["sectors"]:
        for q in s["questions"]:
            q["author"]["name"] = "رنا 5" if s["number"] == 2 else q["author"]["name"]
    return srv.create(spec)


def rtl_club_game(srv: Server) -> str:
    return srv.create({"rules": "club", "title": "משחק 1", "target": 3, "timers": {"minute": 60_000},
                       "game_day": "2026-03-01-sun-rtl",
                       "teams": [{"id": f"t{i + 1}", "name": name, "players": [f"{p} {i + 1}" for p in PLAYERS]}
                                 for i, name in enumerate(TEAMS)]})


def test_tv_straps_and_scores_keep_rtl_names_isolated(srv: Server, overlay: Tab, chromium: Browser,
                                                      tmp_path: Path) -> None:
    game = rtl_tv_game(srv)
    srv.api("PUT", "/api/on-air", {"game": game})
    shots = screenshot_dir(tmp_path)

    # the scoreboard: the team's name, then the score «0 : 0», left to right
    page = overlay.open(f"{srv.url}/overlays/scoreboard")
    wait_js(page, "n => document.querySelector('.sb-team').textContent === n", EXPERTS)
    assert_rtl_names(page, ".sb-team", [EXPERTS])
    assert_in_order(page, ".sb-bar", [".sb-who", ".sb-num-experts", ".sb-colon", ".sb-num-viewers"])
    srv.play(game, "spin", landed=1)
    srv.play(game, "start_timer")
    srv.play(game, "judge", correct=True)
    wait_js(page, "() => document.querySelector('.sb-num-experts').textContent === '1'")
    assert_in_order(page, ".sb-bar", [".sb-who", ".sb-num-experts", ".sb-colon", ".sb-num-viewers"])
    settle(page)
    screenshot(page, shots, "rtl-scoreboard")

    # a player's strap, its subtitle naming the team as the panel writes it (the name isolated)
    subtitle = "капитан команды «\u2068" + EXPERTS + "\u2069» — 3 очка"
    srv.api("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                      "data": {"title": PLAYERS[0], "subtitle": subtitle, "kind": "captain"}})
    strap = Tab(chromium)
    try:
        p2 = strap.open(f"{srv.url}/overlays/lower-third")
        wait_on_air(p2, "lower-third")
        settle(p2)
        assert_rtl_names(p2, ".lt-title", [PLAYERS[0]])
        # the subtitle reads left to right; the team's name inside it right to left, «… — 3 очка»
        # after it: the closing » and «3» stay right of the whole name
        got = p2.evaluate("""letter => {
          const b = document.querySelector('.lt-subtitle bdi');
          const node = document.createTreeWalker(b, NodeFilter.SHOW_TEXT).nextNode();
          const box = i => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1);
                             return r.getBoundingClientRect(); };
          const heb = [...node.data].map((c, i) => new RegExp(letter).test(c) ? i : -1).filter(i => i >= 0);
          const name = heb.map(box);
          const close = box(node.data.indexOf('»')), three = box(node.data.indexOf('3 очка'));
          const open = box(node.data.indexOf('«'));
          return {direction: getComputedStyle(b).direction,
                  nameRtl: name[0].left > name[name.length - 1].left,
                  openBefore: open.right <= Math.min(...name.map(r => r.left)) + 0.5,
                  closeAfter: close.left >= Math.max(...name.map(r => r.right)) - 0.5,
                  threeAfter: three.left > close.left};
        }""", RTL_LETTER)
        assert got == {"direction": "ltr", "nameRtl": True, "openBefore": True, "closeAfter": True,
                       "threeAfter": True}, got
        screenshot(p2, shots, "rtl-lower-third")
    finally:
        assert strap.errors == []
        strap.close()

    # the superblitz names its player: the label, then (under it) the name
    blitz = rtl_tv_game(srv)
    bz = Tab(chromium)
    try:
        p3 = bz.open(f"{srv.url}/overlays/blitz?game={blitz}")
        srv.play(blitz, "spin", landed=9)
        srv.play(blitz, "choose_player", player=PLAYERS[1])
        wait_js(p3, "n => document.querySelector('.bz-player-name').textContent === n", PLAYERS[1])
        settle(p3)
        assert_rtl_names(p3, ".bz-player-name", [PLAYERS[1]])
        assert_in_order(p3, ".bz-player", [".bz-player-label", ".bz-player-name"])
    finally:
        assert bz.errors == []
        bz.close()


def test_the_result_names_the_team_and_the_viewers_who_won(srv: Server, overlay: Tab, tmp_path: Path) -> None:
    final = rtl_tv_game(srv, target=2)
    for sector in (2, 3):
        srv.play(final, "spin", landed=sector)
        srv.play(final, "start_timer")
        srv.play(final, "judge", correct=False)
    page = overlay.open(f"{srv.url}/overlays/result?game={final}")
    wait_on_air(page, "result")
    settle(page)
    assert_rtl_names(page, ".rs-experts .rs-label", [EXPERTS])
    assert_in_order(page, ".rs-score", [".rs-experts .rs-num", ".rs-colon", ".rs-viewers .rs-num"])
    assert_rtl_names(page, ".rs-who")  # the viewers who won: «رنا 5» among them
    assert_in_order(page, ".rs-list li", [".rs-sector", ".rs-who", ".rs-amount"])
    screenshot(page, screenshot_dir(tmp_path), "rtl-result")


def test_club_tables_and_straps_keep_rtl_names_isolated(srv: Server, overlay: Tab, chromium: Browser,
                                                        tmp_path: Path) -> None:
    game = rtl_club_game(srv)
    srv.api("PUT", "/api/on-air", {"game": game})
    shots = screenshot_dir(tmp_path)
    srv.play(game, "seat_team", team="t2")
    page = overlay.open(f"{srv.url}/overlays/central-table")
    wait_on_air(page, "central-table")
    settle(page)
    assert_rtl_names(page, ".ct-name", [TEAMS[1]])
    assert_rtl_names(page, ".ct-players li", [f"{p} 2" for p in PLAYERS])
    screenshot(page, shots, "rtl-central-table")

    srv.play(game, "spin", landed=3)
    srv.play(game, "start_timer")
    srv.play(game, "club_answers", correct=["t1", "t4"])
    tables = Tab(chromium)
    rating = Tab(chromium)
    try:
        p2 = tables.open(f"{srv.url}/overlays/club-tables")
        wait_on_air(p2, "club-tables")
        settle(p2)
        assert_rtl_names(p2, ".ctb-name", TEAMS)
        assert_in_order(p2, ".ctb-tile", [".ctb-num", ".ctb-name"])  # the number over the name
        screenshot(p2, shots, "rtl-club-tables")

        srv.play(game, "judge", correct=True)
        srv.api("POST", "/api/graphics", {"action": "show", "graphic": "game-rating"})
        p3 = rating.open(f"{srv.url}/overlays/game-rating")
        wait_on_air(p3, "game-rating")
        settle(p3)
        assert_rtl_names(p3, ".gr-row .gr-name")
        assert_in_order(p3, ".gr-row", [".gr-place", ".gr-name", ".gr-num", ".gr-central"])
        # the head: the game's Hebrew title, then « · », then the date, left to right
        assert_rtl_names(p3, ".gr-sub bdi", ["משחק 1"])
        assert p3.evaluate("""() => {
          const sub = document.querySelector('.gr-sub'), b = sub.querySelector('bdi');
          const date = sub.lastChild, r = document.createRange();
          r.setStart(date, date.data.indexOf('2026')); r.setEnd(date, date.data.indexOf('2026') + 4);
          return date.nodeType === 3 && r.getBoundingClientRect().left > b.getBoundingClientRect().right;
        }""")
        screenshot(p3, shots, "rtl-game-rating")
    finally:
        for t in (tables, rating):
            assert t.errors == []
            t.close()

    # the best player of the Central Table, with the team's name under it
    for sector in (5, 7):
        srv.play(game, "spin", landed=sector)
        srv.play(game, "start_timer")
        srv.play(game, "club_answers", correct=[])
        srv.play(game, "judge", correct=True)
    srv.play(game, "best_player", player=f"{PLAYERS[0]} 2")
    best = Tab(chromium)
    try:
        p4 = best.open(f"{srv.url}/overlays/best-player")
        wait_on_air(p4, "best-player")
        settle(p4)
        assert_rtl_names(p4, ".bp-name", [f"{PLAYERS[0]} 2"])
        assert_rtl_names(p4, ".bp-team", [TEAMS[1]])
        screenshot(p4, shots, "rtl-best-player")
    finally:
        assert best.errors == []
        best.close()


def test_the_audience_page_keeps_rtl_names_isolated(srv: Server, chromium: Browser, tmp_path: Path) -> None:
    tv = rtl_tv_game(srv)
    srv.api("PUT", "/api/on-air", {"game": tv})
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    try:
        page = ctx.new_page()
        page.goto(f"{srv.url}/live")
        wait_js(page, "n => document.querySelector('[data-field=experts]').textContent === n", EXPERTS)
        assert_rtl_names(page, "[data-field=experts]", [EXPERTS])
        assert_in_order(page, ".side.experts", [".name", "b"])  # the name over the score
        page.screenshot(path=str(screenshot_dir(tmp_path) / "rtl-live-tv.png"), full_page=True)

        club = rtl_club_game(srv)
        srv.play(club, "seat_team", team="t1")
        srv.api("PUT", "/api/on-air", {"game": club})
        wait_js(page, "() => document.querySelectorAll('[data-field=tables] li').length === 6")
        assert_rtl_names(page, "[data-field=tables] li span")
        assert_in_order(page, "[data-field=tables] li", ["span", "b"])
        page.screenshot(path=str(screenshot_dir(tmp_path) / "rtl-live-club.png"), full_page=True)
    finally:
        ctx.close()


def test_the_panels_lists_keep_rtl_names_isolated(srv: Server, chromium: Browser, tmp_path: Path) -> None:
    game = rtl_club_game(srv)
    srv.api("PUT", "/api/on-air", {"game": game})
    srv.play(game, "seat_team", team="t4")
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    try:
        panel = PanelPage(ctx.new_page(), srv).open("/control/club")
        page = panel.page
        expect(page.locator(".table-tile")).to_have_count(6)
        assert_rtl_names(page, ".table-tile .tile-name", TEAMS)
        assert_in_order(page, ".table-tile", [".table-no", ".tile-name"])
        assert_rtl_names(page, "#central-team .central-name", [TEAMS[3]])
        assert_in_order(page, "#central-team", [".table-no", ".central-name"])
        assert_rtl_names(page, "#game-title bdi", [TEAMS[3]])
        # the undo button's words name the seated team, isolated with U+2068 … U+2069 in its text
        undo = page.locator('button[data-action="undo"] .label')
        expect(undo).to_contain_text("\u2068" + TEAMS[3] + "\u2069")
        page.screenshot(path=str(screenshot_dir(tmp_path) / "rtl-panel-club.png"))

        # the live desk of a tv game: the superblitz player «Играет: <name>», the name isolated
        tv = rtl_tv_game(srv)
        srv.api("PUT", "/api/on-air", {"game": tv})
        srv.play(tv, "spin", landed=9)
        srv.play(tv, "choose_player", player=PLAYERS[1])
        page.goto(f"{srv.url}/control/")
        expect(page.locator(".q-player")).to_have_text(f"Играет: {PLAYERS[1]}")
        assert_rtl_names(page, ".q-player", [PLAYERS[1]])
        assert label_before_name(page, ".q-player")
        expect(page.locator("#game-title bdi")).to_have_text(EXPERTS)
        page.screenshot(path=str(screenshot_dir(tmp_path) / "rtl-panel-live.png"))

        # setting a game up: a name typed in Hebrew is laid out right to left as it is typed
        page.goto(f"{srv.url}/control/setup")
        page.fill("#f-team", EXPERTS)
        page.locator(".player-input").first.fill(PLAYERS[1])
        assert page.evaluate("""() => [getComputedStyle(document.getElementById('f-team')).direction,
                                       getComputedStyle(document.querySelector('.player-input')).direction]""") == ["rtl", "rtl"]
        page.fill("#f-team", "Ландау")
        assert page.evaluate("getComputedStyle(document.getElementById('f-team')).direction") == "ltr"
        assert panel.errors == []
    finally:
        ctx.close()


def test_the_league_tables_keep_rtl_names_isolated(tmp_path: Path, chromium: Browser) -> None:
    srv = Server(tmp_path / "league", demo=False, mode="threading").start()
    pages: list[Page] = []
    try:
        league = [f"{n} {i}" for i, n in enumerate(["דנה", "يوسف", "Анна", "נועם", "Борис", "ليلى"] * 2)]
        ids = approved_members(srv, league)
        sid = ok(srv, "POST", "/api/seasons", {"name": "עונה 2026", "qualifying_days": 3}, 201)["id"]
        ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2026-03-01", "confirm": True})
        holding = f"{sid}-d1-sun"
        for name in league:
            ok(srv, "POST", f"/api/holdings/{holding}/registrations", {"member": ids[name]}, 201)
        teams = ok(srv, "POST", f"/api/holdings/{holding}/teams/form", {})["teams"]
        game = club_game(srv, sid, holding, teams)
        play_club(srv, game, "t1", [(True, ["t2"], None), (False, [], "t2"), (True, [], None), (True, [], None)],
                  best=teams[1]["players"][0])
        # the Final: the club's team wins, its «דנה 0» gets the Crystal Sphinx
        club = tv_game(srv, "מועדון", league[:6], season=sid, stage="final", final_team="club")
        central = tv_game(srv, "השולחן המרכזי", league[6:], season=sid, stage="final", final_team="central_table")
        play_tv(srv, club, [True, True])
        play_tv(srv, central, [True, False, True])
        ok(srv, "POST", f"/api/seasons/{sid}/awards", {"crystal_sphinx": ids[league[0]], "reason": "лучший"}, 201)
        stars = [tv_game(srv, team) for team in ("כוכבי הקולנוע", "نجوم 2")]
        play_tv(srv, stars[0], [True, True])
        play_tv(srv, stars[1], [True, False, True])
        xid = ok(srv, "POST", "/api/series", {"name": "מלחמת הכוכבים", "duels": [stars]}, 201)["id"]
        for name, data in (("season-rating", {"season": sid, "top": 8}), ("final-teams", {"season": sid}),
                           ("series", {"series": xid})):
            ok(srv, "POST", "/api/graphics", {"action": "show", "graphic": name, "data": data})
            page = chromium.new_page(viewport={"width": 1920, "height": 1080})
            pages.append(page)
            page.goto(f"{srv.url}/overlays/{name}")
            page.wait_for_function("n => document.querySelector(`[data-part=\"${n}\"]`).classList.contains('is-in')",
                                   arg=name, timeout=10_000)
            settle(page)
        rating, finals, series = pages
        assert_rtl_names(rating, ".sr-name")
        assert_in_order(rating, ".sr-row", [".sr-place", ".sr-name", ".sr-games", ".sr-points"])
        assert_rtl_names(finals, ".ft-player")
        # the foot «Победитель: … · Хрустальный сфинкс: <name>», the name isolated at its end
        assert_rtl_names(finals, "[data-ref=foot] bdi", [league[0]])
        assert label_before_name(finals, "[data-ref=foot]")
        assert_rtl_names(series, ".sw-team")
        assert_in_order(series, ".sw-entry", [".sw-team", ".sw-score"])
        shots = screenshot_dir(tmp_path)
        for name, page in zip(("season-rating", "final-teams", "series"), pages):
            screenshot(page, shots, f"rtl-{name}")
    finally:
        for page in pages:
            page.close()
        srv.stop()
