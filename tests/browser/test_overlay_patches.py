"""The shared overlay client (static/lib/client.js) asks for `state_patch` and builds, in the real
system Chromium, the very state a whole-state client gets; a patch for a state it does not hold
(a lost message) makes it ask for the whole state again (`resync`), and it goes on patching.
Against a real server process (the browser tests' threading mode: engine.io's path)."""
from __future__ import annotations

import pytest

from tests.broadcast.test_fanout import cycle
from tests.broadcast.test_patch import Client
from tests.browser.helpers import Tab, wait_js
from tests.support import Server

pytestmark = [pytest.mark.browser]

COUNT_JS = """() => {
  const o = window.chgkOverlay;
  window.__got = { patch: 0, whole: 0 };
  o.socket.on("state_patch", () => window.__got.patch++);
  o.socket.on("state", () => window.__got.whole++);
}"""


def held(tab: Tab) -> dict:
    return tab.page.evaluate("() => structuredClone(window.chgkOverlay.state)")


def test_the_overlay_client_builds_each_state_from_patches_and_recovers_a_lost_one(server: Server, tab: Tab):
    cycle(server, 0)  # the room has a state to patch from
    whole = Client(server, patches=False)  # the states as API.md's `state` carries them
    tab.open(server.url + "/overlays/scoreboard")
    tab.page.evaluate(COUNT_JS)
    last = 0
    for i in range(1, 9):  # start_timer, undo, undo, spin, …
        last = cycle(server, i)
        wait_js(tab.page, "rev => window.chgkOverlay.state?.rev === rev", last)
        whole.wait_rev(last)
        assert held(tab) == whole.by_rev[last], f"rev {last}: the patched state differs from the whole one"
    got = tab.page.evaluate("() => window.__got")
    assert got == {"patch": 8, "whole": 0}, got

    # a patch whose base the page does not hold: not applied, the whole state asked for and drawn
    tab.page.evaluate("""() => {
      const s = window.chgkOverlay.state;
      window.chgkOverlay.socket.listeners("state_patch")[0](
        { id: s.id, epoch: s.epoch, base: s.rev - 1, rev: s.rev + 5, ops: [[["title"], "Чужой заголовок"]] });
    }""")
    wait_js(tab.page, "() => window.__got.whole === 1")
    assert held(tab)["title"] == whole.by_rev[last]["title"] and held(tab)["rev"] == last
    for i in range(9, 12):
        last = cycle(server, i)
        wait_js(tab.page, "rev => window.chgkOverlay.state?.rev === rev", last)
    whole.wait_rev(last)
    assert held(tab) == whole.by_rev[last]
    assert tab.page.evaluate("() => window.__got") == {"patch": 11, "whole": 1}
    assert tab.errors == []
    whole.close()
