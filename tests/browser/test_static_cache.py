"""An overlay that OBS reloads asks the server for its page and nothing else: its stylesheets,
modules and fonts are at versioned addresses the server answers as immutable
(overlay/web/assets.py), so the browser's cache serves them, and the page shows the game's state
at once. Watched with the DevTools protocol: every static request of the reload is one the cache
answered, and the score drawn is the state's."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.browser.helpers import StaticFetches, Tab, wait_js, wait_live
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
        fetches = StaticFetches(page)
        for _ in range(2):
            fetches.reset()
            page.reload()
            wait_live(page)
            assert len(fetches.statics()) >= 8, fetches.sent  # stylesheets, modules, fonts
            fetched = fetches.fetched()
            assert fetched == [], f"the reload asked the server for {fetched}"
            pages = [url for url in fetches.sent.values() if url.endswith(f"/overlays/{graphic}")]
            assert len(pages) == 1, fetches.sent
            score = server.state("g1")["score"]
            wait_js(page, "s => document.querySelector('[data-ref=experts]').textContent === String(s.experts)"
                          " && document.querySelector('[data-ref=viewers]').textContent === String(s.viewers)",
                    arg=score)
        assert score == {"experts": 0, "viewers": 1}
        assert tab.errors == []
    finally:
        tab.close()
