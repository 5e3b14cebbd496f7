"""An overlay that OBS reloads asks the server for its page and nothing else: its stylesheets,
modules and fonts are at versioned addresses the server answers as immutable
(overlay/web/assets.py), so the browser's cache serves them, and the page shows the game's state
at once. Watched with the DevTools protocol: every static request of the reload is one the cache
answered, and the score drawn is the state's."""
from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.browser.helpers import WAIT_MS, Tab, wait_js, wait_live
from tests.support import Server

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    srv = Server(tmp_path_factory.mktemp("cache") / "data").start()
    srv.play("g1", "spin", landed=2)
    srv.play("g1", "start_timer")
    srv.play("g1", "judge", correct=False)  # 0:1
    yield srv
    srv.stop()


@pytest.mark.parametrize("graphic", ["scoreboard", "full"])
def test_a_reloaded_overlay_fetches_no_static_file_and_draws_the_state(chromium: Browser, server: Server,
                                                                      graphic: str) -> None:
    tab = Tab(chromium)
    try:
        page = tab.open(f"{server.url}/overlays/{graphic}")
        cdp = page.context.new_cdp_session(page)
        cdp.send("Network.enable")
        sent: dict[str, str] = {}  # request id → address
        cached: set[str] = set()  # answered by the browser's cache
        answered: set[str] = set()  # a response, from the cache or the server (after `cached`'s event)
        cdp.on("Network.requestWillBeSent", lambda e: sent.__setitem__(e["requestId"], e["request"]["url"]))
        cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
        cdp.on("Network.responseReceived", lambda e: (
            e["response"].get("fromDiskCache") and cached.add(e["requestId"]), answered.add(e["requestId"])))
        for _ in range(2):
            sent.clear()
            cached.clear()
            answered.clear()
            page.reload()
            wait_live(page)
            statics = {rid: url for rid, url in sent.items() if "/static/" in url}
            assert len(statics) >= 8, sent  # stylesheets, modules, fonts
            deadline = time.monotonic() + WAIT_MS / 1000
            while not set(statics) <= answered and time.monotonic() < deadline:
                page.wait_for_timeout(20)  # the protocol's events arrive while Playwright runs
            assert set(statics) <= answered, {statics[r] for r in set(statics) - answered}
            fetched = sorted(url for rid, url in statics.items() if rid not in cached)
            assert fetched == [], f"the reload asked the server for {fetched}"
            pages = [url for url in sent.values() if url.endswith(f"/overlays/{graphic}")]
            assert len(pages) == 1, sent
            score = server.state("g1")["score"]
            wait_js(page, "s => document.querySelector('[data-ref=experts]').textContent === String(s.experts)"
                          " && document.querySelector('[data-ref=viewers]').textContent === String(s.viewers)",
                    arg=score)
        assert score == {"experts": 0, "viewers": 1}
        assert tab.errors == []
    finally:
        tab.close()
