"""Every on-air graphic in Chromium 103, the browser of OBS 28–30's browser sources, beside the
system Chromium: the same page in the same state, 1920×1080 over a transparent background, must
draw the same parts in both, and neither may log a script or console error.

The lint floor check (tests/test_browser_floor.py) stays the fast check of what 103 lacks; this
one catches what only a real old browser shows, such as a box that lays out but never paints
(the credits' names under their `-webkit-mask-image` fade, docs/OBS.md).

Chromium 103 is the headless build of the npm package @sparticuz/chromium 103.0.0, unpacked by
`python tools/chromium103.py` into ~/.cache/chgk-overlay/chromium-103 ($CHGK_CHROMIUM_103 names
another binary); it draws with the system's fonts. Without it the tests skip, and under CI
(.ci/run installs it) they fail.

Both pages are frozen before the picture is taken, the same way in both browsers: the server
clock is pinned to one instant (the credits' roll, the slate's and the timer's clocks stand
still at the same place), frame timestamps stand still but for a fixed number of 100 ms frames
(the ticker crawls the same distance), finite animations are waited out and infinite ones paused
at their start. The pictures are then compared in 16×16 blocks: a block has ink (alpha) and
detail (edges of the picture over grey: text on a panel), and a block drawn in one browser must
have a block drawn at least faintly at most one block away in the other, which tolerates
sub-pixel text shifts. On a difference both pictures are saved side by side, the blocks marked.

Each page is opened fresh, as OBS opens a browser source (reusing a tab hid the credits' fault).
"""
from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageFilter
from playwright.sync_api import Browser, BrowserContext, Page

from tests.browser.helpers import QUICK_SPIN, WAIT_MS, Tab, screenshot_dir, transparent_png
from tests.browser.test_club_overlays import staged as club_staged
from tests.browser.test_overlays import game_spec
from tests.browser.test_show_graphics import NAMES, logo, portrait, upload
from tests.season.helpers import approved_members, club_game, ok, play_club, play_tv, tv_game
from overlay.graphics.game import GRAPHICS
from overlay.web.pages import SHOW
from tests.support import CHROMIUM_ARGS, Server, worker_playwright
from tools.chromium103 import ENV, VERSION, binary

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BLOCK = 16          # px: the comparison's grain
# A block is drawn when at least `pixels` of its pixels are this opaque (ink) or sit on an edge
# this strong in the picture over grey (detail). Missing means drawn clearly in one browser
# (STRONG) and not even faintly (FAINT) within one block in the other: a faint part at the
# threshold (a logo dimmed under a slate) is not counted missing for a shade's difference.
STRONG = {"alpha": 64, "edge": 48, "pixels": 4}
FAINT = {"alpha": 16, "edge": 16, "pixels": 1}
TICKER_FRAMES = 12  # 100 ms frames the ticker crawls before the picture

# Before any of the page's scripts: no animation frame runs until the test lets them go (once the
# page's fonts are in: a crawl measures its text on its first frame), and then frame timestamps
# stand still unless the test advances them, 100 ms a frame (one step per real frame).
FRAMES_JS = """(() => {
  const real = window.requestAnimationFrame.bind(window);
  const cancel = window.cancelAnimationFrame.bind(window);
  const frames = {hold: true, ts: performance.now(), left: 0, seen: null};
  const ids = new Map();
  let last = 0;
  window.__frames = frames;
  window.requestAnimationFrame = (cb) => {
    const id = ++last;
    const run = (t) => {
      if (frames.hold) { ids.set(id, real(run)); return; }
      ids.delete(id);
      if (t !== frames.seen) {
        frames.seen = t;
        if (frames.left > 0) { frames.left--; frames.ts += 100; }
      }
      cb(frames.ts);
    };
    ids.set(id, real(run));
    return id;
  };
  window.cancelAnimationFrame = (id) => { cancel(ids.get(id)); ids.delete(id); };
})();"""
# Lay the page out (which asks for the fonts its text needs), wait for the fonts, let frames run.
RELEASE_JS = """async () => { void document.getElementById('stage').offsetWidth; await document.fonts.ready;
  window.__frames.hold = false; }"""
POLL_MS = 50  # waits poll on a timer: the page's animation frames are held (FRAMES_JS)
PIN_CLOCK_JS = """(t) => { const c = window.chgkOverlay.clock; c.now = () => t; c.at = () => t; }"""
TWO_FRAMES_JS = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
# The parts have content: shown, on this output's layers, not hidden by the operator.
SHOWN_JS = """(names) => document.body.classList.contains('ready') && names.every(n => {
  const el = document.querySelector(`[data-part='${n}']`);
  return !!el && el.classList.contains('is-in') && !el.classList.contains('layer-off')
    && !el.classList.contains('op-hidden'); })"""
# Finite animations and transitions over, every picture loaded.
SETTLED_JS = """() => document.getAnimations().every(a => a.playState !== 'running'
    || a.effect.getComputedTiming().iterations === Infinity)
  && [...document.images].every(i => !i.getAttribute('src') || i.complete)"""
# Counts the CSS animations and transitions that start (Element.animate ones are running when
# SETTLED_JS looks, or done before).
STARTS_JS = """() => { window.__starts = 0;
  for (const kind of ['animationstart', 'transitionrun'])
    document.addEventListener(kind, () => { window.__starts++; }, true); }"""
PAUSE_LOOPS_JS = """() => { for (const a of document.getAnimations())
  if (a.effect.getComputedTiming().iterations === Infinity) { a.pause(); a.currentTime = 0; } }"""


class Shot(NamedTuple):
    path: str          # with {tv}, {blitz}… for the staged games
    parts: list[str]   # on air before the picture is taken
    crawl: bool = False  # a ticker on the page: advance its frames


# Every graphic of overlay/graphics/game.py GRAPHICS, and the rundown's output with several layers.
SHOTS: dict[str, Shot] = {
    "scoreboard": Shot("/overlays/scoreboard?game={tv}", ["scoreboard"]),
    "timer": Shot("/overlays/timer?game={tv}", ["timer"]),
    "table": Shot("/overlays/table?game={tv}", ["table"]),
    "question": Shot("/overlays/question?game={tv}", ["question"]),
    "blitz": Shot("/overlays/blitz?game={blitz}", ["blitz"]),
    "lower-third": Shot("/overlays/lower-third", ["lower-third"]),
    "result": Shot("/overlays/result?game={result}", ["result"]),
    "full": Shot("/overlays/full?game={tv}", ["scoreboard", "timer", "table", "question"]),
    "full-superblitz": Shot("/overlays/full?game={blitz}", ["scoreboard", "table", "question", "blitz"]),
    "central-table": Shot("/overlays/central-table?game={club}", ["central-table"]),
    "club-tables": Shot("/overlays/club-tables?game={club}", ["club-tables"]),
    "draw": Shot("/overlays/draw?game={draw}", ["draw"]),
    "game-rating": Shot("/overlays/game-rating?game={club}", ["game-rating"]),
    "best-player": Shot("/overlays/best-player?game={best}", ["best-player"]),
    "season-rating": Shot("/overlays/season-rating", ["season-rating"]),
    "final-teams": Shot("/overlays/final-teams", ["final-teams"]),
    "series": Shot("/overlays/series", ["series"]),
    "bug": Shot("/overlays/bug", ["bug"]),
    "ticker": Shot("/overlays/ticker", ["ticker"], crawl=True),
    "slate": Shot("/overlays/slate", ["slate"]),
    "credits": Shot("/overlays/credits", ["credits"]),
    "show-game-straps": Shot("/overlays/show?layers=game,straps,ticker,bug",
                             ["scoreboard", "lower-third", "ticker", "bug"], crawl=True),
    "show-credits": Shot("/overlays/show?layers=credits,ticker", ["credits", "ticker"], crawl=True),
    "show-slate": Shot("/overlays/show?layers=slate,bug", ["slate", "bug"]),
}


# --- the browsers -------------------------------------------------------------------------------

class Browsers(NamedTuple):
    old: Browser   # Chromium 103
    new: Browser   # the system Chromium


def chromium_103() -> Path:
    path = binary()
    if not path.is_file():
        message = f"Chromium 103 is not installed ({path}): run `python tools/chromium103.py` (or set ${ENV})"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def browsers(chromium: Browser) -> Iterator[Browsers]:
    """Chromium 103 for the module, and the system Chromium (this test process's)."""
    path = chromium_103()
    old = worker_playwright().chromium.launch(executable_path=str(path), args=CHROMIUM_ARGS)
    try:
        assert old.version == VERSION, f"{path} is Chromium {old.version}, not {VERSION}"
        yield Browsers(old, chromium)
    finally:
        old.close()


@pytest.fixture(scope="module")
def contexts(browsers: Browsers) -> tuple[BrowserContext, BrowserContext]:
    """One 1920×1080 context in each browser for the module's pages (closed with the module)."""
    return tuple(b.new_context(viewport={"width": 1920, "height": 1080}) for b in browsers)  # type: ignore[return-value]


@pytest.fixture
def tabs(browsers: Browsers, contexts: tuple[BrowserContext, BrowserContext]) -> Iterator[tuple[Tab, Tab]]:
    """A fresh 1920×1080 page in each browser, as OBS opens a browser source: Chromium 103 shows
    some faults only in a page's first renderer (the credits' names were drawn in a tab that had
    shown another page before), so pages are not reused — a new page starts a renderer of its
    own. Frame timestamps under the test's hand."""
    pair = (Tab(browsers.old, contexts[0]), Tab(browsers.new, contexts[1]))
    for tab in pair:
        tab.page.add_init_script(FRAMES_JS)
    yield pair
    for tab in pair:
        tab.close()


# --- the staged states ------------------------------------------------------------------------

def stage_tv(srv: Server) -> dict[str, str]:
    """A tv game mid-round (one sector won, the question of sector 8 with the viewer's photo, the
    minute running), a superblitz with its player and a first verdict, a finished game."""
    tv = srv.create(game_spec(timers={"minute": 600_000}, spin=QUICK_SPIN))
    srv.play(tv, "spin", landed=1)
    srv.play(tv, "start_timer")
    srv.play(tv, "judge", correct=True)
    srv.play(tv, "spin", landed=8)
    srv.play(tv, "start_timer")
    blitz = srv.create(game_spec(spin=QUICK_SPIN))
    srv.play(blitz, "spin", landed=9)
    srv.play(blitz, "choose_player", player="Борис")
    srv.play(blitz, "start_timer")
    srv.play(blitz, "judge", correct=True)
    result = srv.create(game_spec(target=2, spin=QUICK_SPIN))
    for sector, correct in ((2, True), (3, False), (4, False)):
        srv.play(result, "spin", landed=sector)
        srv.play(result, "start_timer")
        srv.play(result, "judge", correct=correct)
    return {"tv": tv, "blitz": blitz, "result": result}


def stage_club(srv: Server) -> dict[str, str]:
    """A club game of 18 tables mid-question, one waiting for its first team, one finished."""
    return {"club": club_staged(srv, "club-tables"), "draw": club_staged(srv, "draw", 8),
            "best": club_staged(srv, "best-player", 8)}


def stage_league(srv: Server) -> None:
    """A season with a qualifying day and the Final played, and a series of two duels, each on air."""
    league = [f"{first} {last}" for first, last in zip(
        ["Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Захар", "Ира", "Кирилл", "Лена", "Марк"],
        ["Смирнова", "Орлов", "Зайцева", "Лебедев", "Крылова", "Соколов", "Морозова", "Волков", "Павлова",
         "Козлов", "Новикова", "Фёдоров"])]
    ids = approved_members(srv, league)
    sid = ok(srv, "POST", "/api/seasons", {"name": "Сезон 2026", "qualifying_days": 3}, 201)["id"]
    ok(srv, "POST", f"/api/seasons/{sid}/days", {"day": 1, "sunday": "2026-03-01", "confirm": True})
    holding = f"{sid}-d1-sun"
    for name in league:
        ok(srv, "POST", f"/api/holdings/{holding}/registrations", {"member": ids[name]}, 201)
    teams = ok(srv, "POST", f"/api/holdings/{holding}/teams/form", {})["teams"]
    game = club_game(srv, sid, holding, teams)
    play_club(srv, game, "t1", [(True, ["t2"], None), (False, [], "t2"), (True, [], None), (True, [], None)],
              best=teams[1]["players"][0])
    club = tv_game(srv, "Клуб", league[:6], season=sid, stage="final", final_team="club")
    central = tv_game(srv, "Центральный стол", league[6:], season=sid, stage="final", final_team="central_table")
    play_tv(srv, club, [True, True])
    play_tv(srv, central, [True, False, True])
    ok(srv, "POST", f"/api/seasons/{sid}/awards", {"crystal_sphinx": ids[league[0]], "reason": "лучший"}, 201)
    stars = [tv_game(srv, team) for team in ("Звёзды кино", "Звёзды спорта")]
    play_tv(srv, stars[0], [True, True])
    play_tv(srv, stars[1], [True, False, True])
    xid = ok(srv, "POST", "/api/series", {"name": "Битва звёзд", "duels": [stars]}, 201)["id"]
    for name, data in (("season-rating", {"season": sid, "top": 8}), ("final-teams", {"season": sid}),
                       ("series", {"series": xid})):
        ok(srv, "POST", "/api/graphics", {"action": "show", "graphic": name, "data": data})


def stage_show(srv: Server) -> int:
    """A rundown with an item on each of six layers, all taken: the scoreboard, a photo strap, a
    ticker, a bug, the «Скоро начнём» slate, the credits (taken last). Returns the credits'
    shown_at (server ms)."""
    photo = upload(srv, portrait(), "captain.jpg")["id"]
    # the bug by URL: this output's pictures named by media id are issue 22's defect 3, not 103's
    pic = srv.url + upload(srv, logo("#1d4ed8", "SPONSOR"))["url"]
    rid = srv.api("POST", "/api/rundowns", {"name": "Эфир"})["id"]
    items = [
        ("game", "scoreboard", {}),
        ("straps", "lower-third", {"style": "photo", "photo": photo, "title": "Борис Крюк",
                                   "subtitle": "Капитан команды «Сова», шестой сезон за столом"}),
        ("ticker", "ticker", {"items": ["Следующая игра — 12 декабря, 19:00", "Клуб «Сова» ищет знатоков",
                                        "Финал сезона: 20 команд"], "speed": 400}),
        ("bug", "bug", {"media": pic, "corner": "top-right"}),
        ("slate", "slate", {"kind": "soon", "subtitle": "Финал сезона · Клуб «Сова»", "countdown_ms": 300_000}),
        ("credits", "credits", {"names": NAMES, "speed": 200, "loop": True}),
    ]
    for layer, graphic, data in items:
        srv.api("POST", f"/api/rundowns/{rid}/items",
                {"segment": "Эфир", "label": layer, "graphic": graphic, "layer": layer, "out": "manual", "data": data})
        rundown = srv.api("POST", f"/api/rundowns/{rid}/actions", {"action": "take", "item": layer})
    return rundown["program"]["credits"]["shown_at"]


class Staged(NamedTuple):
    server: Server
    games: dict[str, str]
    instant: int  # the server time both browsers' clocks are pinned to


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Staged]:
    srv = Server(tmp_path_factory.mktemp("chromium103") / "data", demo=False, mode="threading").start()
    try:
        games = {**stage_tv(srv), **stage_club(srv)}
        stage_league(srv)
        srv.api("PUT", "/api/on-air", {"game": games["tv"]})  # what the rundown's scoreboard follows
        credits_at = stage_show(srv)
        # 5 s into the credits at 200 px/s: the roll's names fill the window
        yield Staged(srv, games, credits_at + 5000)
    finally:
        srv.stop()


# --- pictures -----------------------------------------------------------------------------------

def drawn(png: bytes) -> dict[str, tuple[Image.Image, Image.Image]]:
    """For each level (STRONG, FAINT), two block maps (one pixel per block, 255 = drawn): ink
    (alpha) and detail (edges over grey)."""
    im = Image.open(io.BytesIO(png)).convert("RGBA")
    alpha = im.getchannel("A")
    grey = Image.new("RGBA", im.size, (128, 128, 128, 255))
    grey.alpha_composite(im)
    edges = grey.convert("L").filter(ImageFilter.FIND_EDGES)

    def block_map(pixels: Image.Image, cut: int, least: int) -> Image.Image:
        # a block's mean is 255 × its share of marked pixels
        share = 255 * least / BLOCK ** 2 - 1e-6
        return pixels.point(lambda v: 255 if v >= cut else 0).reduce(BLOCK).point(lambda v: 255 if v >= share else 0)

    return {name: (block_map(alpha, level["alpha"], level["pixels"]), block_map(edges, level["edge"], level["pixels"]))
            for name, level in (("strong", STRONG), ("faint", FAINT))}


def missing(a: Image.Image, b: Image.Image) -> Image.Image:
    """Blocks drawn in `a` with no drawn block within one block in `b`."""
    return ImageChops.subtract(a, b.filter(ImageFilter.MaxFilter(3)))


def blocks(mask: Image.Image) -> list[tuple[int, int]]:
    """The top-left corners (px) of the marked blocks."""
    w = mask.width
    return [(i % w * BLOCK, i // w * BLOCK) for i, v in enumerate(mask.tobytes()) if v]


def differences(old: bytes, new: bytes) -> dict[str, list[tuple[int, int]]]:
    """What one browser drew and the other did not, by block (empty when they agree)."""
    was, now = drawn(old), drawn(new)
    found = {}
    for kind, i in (("ink", 0), ("detail", 1)):
        found[f"{kind} only in the system Chromium"] = blocks(missing(now["strong"][i], was["faint"][i]))
        found[f"{kind} only in Chromium 103"] = blocks(missing(was["strong"][i], now["faint"][i]))
    return {k: v for k, v in found.items() if v}


def save_difference(out: Path, name: str, old: bytes, new: bytes, found: dict) -> Path:
    """Both pictures over grey, side by side, the blocks that differ outlined in red."""
    pics = []
    for png in (old, new):
        im = Image.new("RGBA", (1920, 1080), (128, 128, 128, 255))
        im.alpha_composite(Image.open(io.BytesIO(png)).convert("RGBA"))
        d = ImageDraw.Draw(im)
        for x, y in {xy for where in found.values() for xy in where}:
            d.rectangle((x, y, x + BLOCK - 1, y + BLOCK - 1), outline=(255, 0, 0, 255), width=2)
        pics.append(im)
    sheet = Image.new("RGBA", (3840, 1080))
    sheet.paste(pics[0], (0, 0))
    sheet.paste(pics[1], (1920, 0))
    target = out / f"chromium103-{name}.png"
    sheet.convert("RGB").save(target)
    return target


def same_pixels(a: bytes, b: bytes) -> bool:
    """Two PNGs of one page draw the very same pixels (nothing on it moves). One browser encodes
    the same pixels to the same bytes, so equal files need no decoding."""
    if a == b:
        return True
    one, two = (Image.open(io.BytesIO(png)) for png in (a, b))
    return one.size == two.size and one.tobytes() == two.tobytes()


def frozen_picture(tab: Tab, shot: Shot, instant: int) -> bytes:
    """The page, its parts on air, frozen at `instant` (see the module's doc), as a PNG."""
    page: Page = tab.page
    page.wait_for_function(SHOWN_JS, arg=shot.parts, polling=POLL_MS, timeout=WAIT_MS)
    page.evaluate(RELEASE_JS)
    page.wait_for_function("document.getElementById('stage').classList.contains('live')", polling=POLL_MS,
                           timeout=WAIT_MS)
    page.evaluate(PIN_CLOCK_JS, instant)
    page.evaluate(TWO_FRAMES_JS)  # every loop has drawn a frame at the pinned instant
    if shot.crawl:
        page.evaluate("n => { window.__frames.left = n; }", TICKER_FRAMES)
        page.wait_for_function("() => window.__frames.left === 0", polling=POLL_MS, timeout=WAIT_MS)
        page.evaluate(TWO_FRAMES_JS)
    # A picture taken while nothing moves: a part that starts moving while it is taken (a new state
    # from the server replays an entrance: the strap of `full` in the run of 21:29) means another.
    # And the very same pixels twice in a row, two frames apart: the events and the animation list
    # missed a strap caught mid-entrance once (`full`, session 16's run E); the pixels cannot.
    page.evaluate(STARTS_JS)
    last = None
    for _ in range(6):
        page.wait_for_function(SETTLED_JS, polling=POLL_MS, timeout=WAIT_MS)
        page.evaluate(PAUSE_LOOPS_JS)
        page.evaluate(TWO_FRAMES_JS)
        starts = page.evaluate("window.__starts")
        png = transparent_png(page)
        if page.evaluate("window.__starts") != starts or not page.evaluate(SETTLED_JS):
            last = None
            continue
        if last is not None and same_pixels(last, png):
            return png
        last = png
    pytest.fail(f"{shot.path}: its picture was not the same twice in a row in 6 takes: something moves")


# --- the tests ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", SHOTS)
def test_chromium_103_draws_what_the_system_chromium_draws(tabs: tuple[Tab, Tab], staged: Staged, name: str,
                                                           tmp_path: Path) -> None:
    shot = SHOTS[name]
    url = staged.server.url + shot.path.format(**staged.games)
    for tab in tabs:  # both load at once
        tab.page.goto(url, wait_until="commit")
    old, new = (frozen_picture(tab, shot, staged.instant) for tab in tabs)
    assert tabs[0].errors == [], f"Chromium 103: {tabs[0].errors}"
    assert tabs[1].errors == [], f"system Chromium: {tabs[1].errors}"
    found = differences(old, new)
    if found:
        saved = save_difference(screenshot_dir(tmp_path), name, old, new, found)
        summary = {k: f"{len(v)} blocks from {v[0]}" for k, v in found.items()}
        pytest.fail(f"{name} draws differently in Chromium 103 (left) and the system Chromium (right), "
                    f"{saved}: {summary}")


def test_every_graphic_is_compared() -> None:
    assert {shot.path.split("?")[0].rsplit("/", 1)[1] for shot in SHOTS.values()} == {*GRAPHICS, SHOW}


def test_the_comparison_sees_a_missing_part_and_tolerates_a_shifted_one() -> None:
    """A strap's text drawn 1 px lower and 1 px to the right is the same picture; without its name,
    or with nothing drawn at all, it is not."""
    def strap(dx: int = 0, dy: int = 0, name: bool = True) -> bytes:
        im = Image.new("RGBA", (1920, 1080), (0, 0, 0, 0))
        d = ImageDraw.Draw(im)
        d.rounded_rectangle((200, 800, 1200, 960), radius=12, fill=(20, 24, 40, 230))
        if name:
            d.text((240 + dx, 820 + dy), "Борис Крюк", fill=(255, 255, 255, 255), font_size=54)
        d.text((240 + dx, 900 + dy), "капитан", fill=(220, 180, 90, 255), font_size=30)
        out = io.BytesIO()
        im.save(out, "PNG")
        return out.getvalue()

    assert differences(strap(), strap(dx=1, dy=1)) == {}
    found = differences(strap(name=False), strap())
    assert list(found) == ["detail only in the system Chromium"], found
    xs, ys = zip(*found["detail only in the system Chromium"])
    assert 224 <= min(xs) and max(xs) < 600 and 800 <= min(ys) and max(ys) < 900, found
    blank = io.BytesIO()
    Image.new("RGBA", (1920, 1080), (0, 0, 0, 0)).save(blank, "PNG")
    found = differences(strap(), blank.getvalue())
    assert list(found) == ["ink only in Chromium 103", "detail only in Chromium 103"], found
