"""The scoreboard's «Помощь клуба» badge (issue 36), in the system Chromium against a real server
process: a viewer reads it as the club helping now, so it is drawn while the club helps (its 20 s)
and not while help is merely still available — nor after it (screenshot while it helps)."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser.helpers import Tab, screenshot, screenshot_dir, settle, wait_js, wait_on_air
from tests.browser.test_overlays import new_game
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BADGE = "[data-part=scoreboard] [data-ref=help]"
DRAWN_JS = ("sel => { const el = document.querySelector(sel); const r = el.getBoundingClientRect();"
            " return r.width > 0 && r.height > 0 && getComputedStyle(el).display !== 'none'; }")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("club-help") / "data", mode="threading").start()
    yield srv
    srv.stop()


def drawn(page, sel: str) -> bool:
    return page.evaluate(DRAWN_JS, sel)


def test_the_badge_says_the_club_is_helping_only_while_it_helps(server: Server, tab: Tab, tmp_path: Path) -> None:
    game = new_game(server, timers={"minute": 1000, "club_help": 60_000})
    page = tab.open(f"{server.url}/overlays/scoreboard")
    wait_on_air(page, "scoreboard")
    settle(page)
    assert not drawn(page, BADGE)                     # help available from the start: nothing drawn
    # the experts behind, the minute over: help may be asked — still nothing on air
    server.play(game, "spin", landed=2)
    server.play(game, "start_timer")
    server.play(game, "judge", correct=False)         # 0:1
    server.play(game, "spin", landed=3)
    server.play(game, "start_timer")
    wait_js(page, "() => window.chgkOverlay.state?.round?.phase === 'answer'")
    assert server.state(game)["club_help"]["available"]
    assert not drawn(page, BADGE)
    # the club helps: the badge is on
    server.play(game, "club_help")
    wait_js(page, DRAWN_JS, BADGE)
    settle(page)
    assert page.inner_text(BADGE) == "Помощь клуба"
    screenshot(page, screenshot_dir(tmp_path), "club-help-badge")
    # the verdict: help given and gone, so is the badge
    server.play(game, "judge", correct=True)
    wait_js(page, f"() => !({DRAWN_JS})({BADGE!r})")
    assert tab.errors == []
