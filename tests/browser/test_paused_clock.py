"""A paused clock reads the same on the panel and on air (issue 36), in the system Chromium
against a real server process: one rounding rule (lib/timer.js formatRemaining) — whole seconds
rounded up, tenths in the last 10 s — so 48.2 s left is «0:49» on both, never «0:48.2» beside
«0:49»."""
from __future__ import annotations

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.browser.helpers import Tab, wait_js, wait_on_air
from tests.browser.test_overlays import new_game
from tests.browser.test_panel import Panel
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.mark.parametrize("minute_ms", [60_000, 9_500])
def test_a_paused_clock_reads_the_same_on_the_panel_and_on_air(panel_server: Server, context: BrowserContext,
                                                               tab: Tab, minute_ms: int) -> None:
    game = new_game(panel_server, timers={"minute": minute_ms})
    panel = Panel(context.new_page(), panel_server).open()
    panel.wait_rev(0, game)
    air = tab.open(f"{panel_server.url}/overlays/timer")
    panel_server.play(game, "spin", landed=2)
    panel_server.play(game, "start_timer")
    state = panel_server.play(game, "pause_timer")
    left = state["timer"]["remaining_ms"]
    assert not state["timer"]["running"] and 0 < left < minute_ms
    panel.wait_rev(state["rev"])
    wait_on_air(air, "timer")
    wait_js(air, "() => window.chgkOverlay.state?.timer?.running === false")
    on_air = air.inner_text("[data-part=timer] [data-ref=digits]")
    expect(panel.page.locator("#timer-digits")).to_have_text(on_air)
    # and it is the rule: whole seconds rounded up, or tenths (decimal comma) in the last 10 s
    if left >= 10_000:
        s = -(-left // 1000)
        assert on_air == f"{s // 60}:{s % 60:02d}", (left, on_air)
    else:
        tenths = -(-left // 100)
        assert on_air == f"{tenths // 10},{tenths % 10}", (left, on_air)
    assert not panel.errors, panel.errors
    assert tab.errors == []
