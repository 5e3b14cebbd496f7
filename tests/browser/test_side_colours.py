"""One colour per side (issue 22, defect 6): the experts' and the viewers' colours, from the
theme, are the same on the operator panel, on /live and in every graphic that marks a side (the
score, a sector won). Read as Chromium computes them on each page, after one point to each side."""
from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from tests.browser.helpers import WAIT_MS, PanelPage, Tab, wait_js
from tests.browser.test_overlays import game_spec
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
COLOUR_JS = "([sel, prop]) => getComputedStyle(document.querySelector(sel))[prop]"

# Per page: (selector, property) of a mark of each side.
MARKS = {
    "panel": {"experts": [("#score-experts", "color"), (".sector.result-experts", "borderTopColor")],
              "viewers": [("#score-viewers", "color"), (".sector.result-viewers", "borderTopColor")]},
    "/live": {"experts": [(".side.experts", "borderTopColor"), (".sector.experts", "backgroundColor")],
              "viewers": [(".side.viewers", "borderTopColor"), (".sector.viewers", "backgroundColor")]},
    "/overlays/scoreboard": {"experts": [(".sb-num-experts", "color"), (".sb-experts .sb-label", "color")],
                             "viewers": [(".sb-num-viewers", "color"), (".sb-viewers .sb-label", "color")]},
    "/overlays/table": {"experts": [(".won-experts .tb-win path", "fill")],
                        "viewers": [(".won-viewers .tb-win path", "fill")]},
    "/overlays/full": {"experts": [(".sb-num-experts", "color")], "viewers": [(".sb-num-viewers", "color")]},
}


# A club's own theme in the data folder (docs/THEMES.md), with its own sides' colours — green
# experts, magenta viewers — made the house theme (config THEME); OBS opens the graphics with
# `?theme=club`, the panel and /live take the house theme's sides.
CUSTOM = {"experts": "rgb(47, 191, 113)", "viewers": "rgb(217, 70, 143)"}


def club_theme() -> str:
    css = (ROOT / "static/themes/classic.css").read_text(encoding="utf-8")
    css = re.sub(r"--c-experts:\s*[^;]+;", "--c-experts: #2fbf71;", css)
    return re.sub(r"--c-viewers:\s*[^;]+;", "--c-viewers: #d9468f;", css)


@pytest.fixture(scope="module", params=["shipped", "custom"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    data = tmp_path_factory.mktemp("colours") / "data"
    env = {}
    if request.param == "custom":
        (data / "themes").mkdir(parents=True)
        (data / "themes/club.css").write_text(club_theme(), encoding="utf-8")
        env["CHGK_OVERLAY_THEME"] = "club"
    srv = Server(data, env=env).start()
    srv.theme = request.param  # type: ignore[attr-defined]
    yield srv
    srv.stop()


def colours(page: Page, marks: dict) -> dict[str, set[str]]:
    return {side: {page.evaluate(COLOUR_JS, [sel, prop]) for sel, prop in pairs} for side, pairs in marks.items()}


def test_each_side_has_one_colour_on_the_panel_live_and_on_air(server: Server, chromium: Browser,
                                                             context) -> None:
    game = server.create(game_spec(), on_air=True)
    for sector, correct in ((2, True), (3, False)):
        server.play(game, "spin", landed=sector)
        server.play(game, "start_timer")
        server.play(game, "judge", correct=correct)
    seen: dict[str, dict[str, set[str]]] = {}
    panel = PanelPage(context.new_page(), server).open()
    panel.wait_rev(6, game)
    seen["panel"] = colours(panel.page, MARKS["panel"])
    tab = Tab(chromium)
    try:
        for path in ("/live", "/overlays/scoreboard", "/overlays/table", "/overlays/full"):
            tab.page.goto(server.url + path + ("?theme=club" if server.theme == "custom" and path != "/live" else ""))  # type: ignore[attr-defined]
            wait_js(tab.page, "() => document.body?.classList.contains('ready') && document.body.dataset.rev === '6'",
                    timeout_ms=WAIT_MS)
            seen[path] = colours(tab.page, MARKS[path])
        # leaving a page aborts its socket's pending poll: not an error of the page
        assert [e for e in tab.errors if not re.search(r"/socket\.io/.*ERR_ABORTED", e)] == []
    finally:
        tab.close()
    for side in ("experts", "viewers"):
        per_page = {page: c[side] for page, c in seen.items()}
        assert len(set().union(*per_page.values())) == 1, (side, per_page)
    assert seen["panel"]["experts"] != seen["panel"]["viewers"]
    if server.theme == "custom":  # type: ignore[attr-defined]
        assert {side: c.pop() for side, c in seen["panel"].items()} == CUSTOM
    assert panel.errors == []
