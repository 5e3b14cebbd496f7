"""The score drawn on air converges to the game's (issue 22, defect 1): verdicts undone 50–600 ms
later, and a decisive round granted right after the fifth point, leave in `scoreboard` and `full`
exactly one drawn digit per box, equal to the state, once the game rests. Read from what Chromium
draws: the digit spans visible inside their box (which clips them), with an opacity above zero."""
from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.helpers import QUICK_SPIN, Tab, settle, wait_js, wait_live
from tests.browser.test_overlays import game_spec
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# The digits drawn in each score box: spans inside the box's clip, visible, not faded out.
DRAWN_DIGITS_JS = """() => Object.fromEntries(['experts', 'viewers'].map(side => {
  const box = document.querySelector(`[data-part=scoreboard] [data-ref=${side}]`);
  const b = box.getBoundingClientRect();
  const drawn = [...box.children].filter(s => {
    const r = s.getBoundingClientRect();
    const inside = Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top) > 1;
    let opaque = true;
    for (let a = s; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      if (cs.display === 'none' || cs.visibility === 'hidden' || Number(cs.opacity) < 0.02) opaque = false;
    }
    return inside && opaque;
  });
  return [side, drawn.map(s => s.textContent)];
}))"""

# Paces between a verdict and its undo: the operator's quick correction.
PACES_S = (0.05, 0.1, 0.2, 0.3, 0.45, 0.6)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("score") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture
def pages(chromium: Browser) -> Iterator[list[Page]]:
    tabs = [Tab(chromium), Tab(chromium)]
    yield [t.page for t in tabs]
    for tab in tabs:
        assert tab.errors == []
        tab.close()


def plain_spec(target: int) -> dict:
    """The tests' game with one question per sector: every spin is one verdict."""
    spec = game_spec(target=target, spin=QUICK_SPIN)
    for s in spec["sectors"]:
        if s["kind"] in ("blitz", "superblitz"):
            s.update(kind="regular", questions=s["questions"][:1])
    return spec


def at_rest_with(page: Page, state: dict) -> dict:
    """Waits until `page` has `state`'s rev and its rolls have ended; the digits drawn."""
    wait_js(page, "(rev) => document.body?.dataset.rev === String(rev)", state["rev"])
    settle(page)
    return page.evaluate(DRAWN_DIGITS_JS)


def assert_drawn_score(pages: list[Page], state: dict, what: str) -> None:
    want = {"experts": [str(state["score"]["experts"])], "viewers": [str(state["score"]["viewers"])]}
    for page in pages:
        assert at_rest_with(page, state) == want, (page.url, what)


def open_both(server: Server, pages: list[Page]) -> None:
    for page, path in zip(pages, ("/overlays/scoreboard", "/overlays/full")):
        page.goto(server.url + path)
        wait_live(page)


def test_a_verdict_undone_at_once_leaves_the_games_score(server: Server, pages: list[Page]) -> None:
    game = server.create(plain_spec(target=20), on_air=True)
    open_both(server, pages)
    sector = 1
    for pace in PACES_S:
        for correct in (True, False):
            server.play(game, "spin", landed=sector)
            server.play(game, "start_timer")
            server.play(game, "judge", correct=correct)
            time.sleep(pace)                       # the operator's pace, not a wait for the page
            state = server.api("POST", f"/api/games/{game}/undo")["state"]
            assert_drawn_score(pages, state, f"undo {pace}s after {correct}")
            time.sleep(pace)
            state = server.play(game, "judge", correct=not correct)   # the corrected verdict
            assert_drawn_score(pages, state, f"corrected {pace}s")
            sector = state["round"]["sector"] % 13 + 1


def test_a_decisive_round_granted_right_after_the_point_reads_0_0(server: Server, pages: list[Page]) -> None:
    game = server.create(game_spec(target=6, spin=QUICK_SPIN), on_air=True)
    open_both(server, pages)
    for sector in (1, 2, 3, 4, 6):
        server.play(game, "spin", landed=sector)
        server.play(game, "start_timer")
        server.play(game, "judge", correct=True)   # → 5:0, the fifth point rolling
    server.play(game, "request_decisive_round")
    state = server.play(game, "decide_decisive_round", granted=True, players=["Анна", "Борис", "Вера"])
    assert state["score"] == {"experts": 0, "viewers": 0}
    assert_drawn_score(pages, state, "decisive round granted")
