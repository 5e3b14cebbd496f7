"""The live panel under an operator's hands (issue 17), in the real system Chromium against a
real server process: presses in quick succession, refusals in the panel's language, notices
that leave and never cover a control, everything a round needs in view on a laptop and a
tablet, words a person reads, and the overlays list on the graphics desk.
"""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext, expect

from tests.browser.test_panel import Panel, spec
from tests.support import Server

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def panel(context: BrowserContext, panel_server: Server) -> Iterator[Panel]:
    p = Panel(context.new_page(), panel_server)
    yield p
    assert not p.errors, p.errors


def on_air(server: Server, panel: Panel, **kw) -> str:
    game = server.create(kw.pop("game_spec", None) or spec(**kw), on_air=True)
    panel.open()
    panel.wait_rev(0, game)
    return game


def wait_server_rev(server: Server, game: str, rev: int, panel: Panel) -> dict:
    panel.wait_rev(rev)
    state = server.state(game)
    assert state["rev"] == rev
    return state


def events(server: Server, game: str) -> list[str]:
    return [e["event"]["type"] for e in server.api("GET", f"/api/games/{game}/log")["events"]]


# ---- 1. a quick second press is not a double press -------------------------------------------

def test_a_sector_then_space_then_a_verdict_at_once_are_all_done(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel)
    kb = panel.page.keyboard
    rev = 0
    for n, verdict in ((4, "Equal"), (11, "Minus"), (2, "Equal")):
        for d in str(n):
            kb.press(d)
        kb.press("Enter")          # the spin …
        kb.press("Space")          # … its minute, a few ms later, before the spin's answer
        kb.press(verdict)          # … and the verdict right after
        rev += 3
        state = wait_server_rev(panel_server, game, rev, panel)
        assert state["round"]["sector"] == n and state["round"]["phase"] == "closed"
    assert panel_server.state(game)["score"] == {"experts": 2, "viewers": 1}
    assert events(panel_server, game).count("timer_started") == 3
    expect(panel.page.locator('.notice[data-code="stale_rev"]')).to_have_count(0)
    expect(panel.page.locator(".notice-error")).to_have_count(0)


def test_a_verdict_just_after_the_time_up_is_done(panel_server: Server, panel: Panel) -> None:
    game_spec = {**spec(), "timers": {"minute": 1000}}
    game = on_air(panel_server, panel, game_spec=game_spec)
    page, kb = panel.page, panel.page.keyboard
    rev = 0
    for n, delay in zip((1, 2, 3, 4, 6), (0, 50, 120, 200, 300)):
        for d in str(n):
            kb.press(d)
        kb.press("Enter")
        panel.wait_rev(rev + 1)
        kb.press("Space")
        panel.wait_rev(rev + 2)
        # the clock's time-up reaches the panel (rev + 3), then the verdict follows at once
        page.wait_for_function("rev => document.body.dataset.rev === String(rev)", arg=rev + 3, timeout=15_000)
        if delay:
            page.wait_for_timeout(delay)
        kb.press("Equal")
        rev += 4
        state = wait_server_rev(panel_server, game, rev, panel)
        assert state["round"]["phase"] == "closed" and state["sectors"][n - 1]["result"] == "experts", (n, delay)
    expect(page.locator('.notice[data-code="stale_rev"]')).to_have_count(0)


def test_the_same_key_twice_is_done_once(panel_server: Server, panel: Panel) -> None:
    game = on_air(panel_server, panel)
    page, kb = panel.page, panel.page.keyboard
    panel.click(panel.sector(6), rev=1)
    kb.press("Space")
    kb.press("Space")                      # a bounce: within a few ms
    calm = panel.notice("double_press")
    expect(calm).to_be_visible()
    expect(calm).to_have_class(re.compile(r"notice-info"))
    expect(calm).to_contain_text("выполнено один раз")
    wait_server_rev(panel_server, game, 2, panel)
    kb.down("Equal")
    kb.up("Equal")
    page.wait_for_timeout(60)              # the second press 60 ms later, after the first's answer
    kb.down("Equal")
    kb.up("Equal")
    expect(panel.notice("double_press")).to_have_count(2)
    state = wait_server_rev(panel_server, game, 3, panel)
    assert state["score"] == {"experts": 1, "viewers": 0}
    panel.sector(7).dblclick()             # a double click on a sector: one spin
    wait_server_rev(panel_server, game, 4, panel)
    page.wait_for_timeout(300)
    assert events(panel_server, game).count("timer_started") == 1
    assert panel_server.state(game)["rev"] == 4


def test_a_press_against_another_panels_change_is_refused(
        panel_server: Server, panel: Panel, tablet_context: BrowserContext) -> None:
    game = on_air(panel_server, panel)
    other = Panel(tablet_context.new_page(), panel_server).open()
    other.wait_rev(0, game)
    panel.click(panel.sector(8), rev=1)
    panel.click(panel.button("start_timer"), rev=2)
    other.wait_rev(2)
    # this panel has not yet heard of the other's verdict when its own key goes
    panel.page.evaluate("() => window.chgkPanel.conn.socket.off('state')")
    other.button("incorrect").tap()
    other.wait_rev(3)
    panel.page.keyboard.press("Equal")
    refusal = panel.notice("stale_rev")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("с другого пульта")
    state = panel_server.state(game)
    assert state["rev"] == 3 and state["score"] == {"experts": 0, "viewers": 1}
    assert not other.errors, other.errors
