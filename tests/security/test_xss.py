"""Names, titles and question texts come from operators, packs and spreadsheets — and are shown
on the on-air graphics and the panel. Markup in them must stay text: in the real Chromium no
script from the data runs, on any overlay or panel page, and the text is shown as written."""
from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
import requests
from playwright.sync_api import Browser, Page, Request

from tests.browser.helpers import WAIT_MS
from tests.support import PASSWORD, TOKEN, Server

AUTH = {"Authorization": f"Bearer {TOKEN}"}
IMG = "<img src=x onerror=__xss=1>"
SCRIPT = "<script>__xss=2</script>"
SVG = '"><svg onload=__xss=3>'
ATTR = "' onmouseover=__xss=4 x='"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, str, str]]:
    srv = Server(tmp_path_factory.mktemp("xss") / "data", demo=False).start()
    q = {"text": f"Вопрос {IMG} {SCRIPT}", "answer": f"Ответ {SVG}", "comment": f"Комментарий {ATTR}",
         "author": {"name": f"Зритель {IMG}", "city": SVG}, "prize": {"amount": 100, "currency": "UAH"}}
    game = srv.create({"rules": "tv", "title": f"Игра {SCRIPT}",
                       "experts": {"name": f"Команда {IMG}", "players": [IMG, SVG, ATTR], "captain": IMG},
                       "sectors": [{"number": 1, "kind": "regular", "questions": [q]}],
                       "timers": {"minute": 600_000}}, on_air=True)
    for body in ({"type": "spin", "landed": 1}, {"type": "start_timer"}, {"type": "judge", "correct": True}):
        assert srv.command(game, **body).status_code == 200
    teams = [{"id": f"t{i}", "name": f"{IMG}{i}", "players": [SVG, ATTR]} for i in range(1, 3)]
    club = srv.create({"rules": "club", "title": SVG, "teams": teams, "game_day": "2026-03-01-sun"})
    srv.command(club, type="seat_team", team="t1")
    assert srv.call("POST", "/api/graphics", {"action": "show", "graphic": "lower-third",
                                              "data": {"title": IMG, "subtitle": SVG}}).status_code == 200
    for graphic, data in (("ticker", {"items": [IMG, SCRIPT, SVG], "title": ATTR}),
                          ("slate", {"title": IMG, "subtitle": SVG, "kicker": ATTR, "countdown_ms": 60_000}),
                          ("credits", {"names": [IMG, {"name": SVG, "role": ATTR}], "title": SCRIPT, "loop": True}),  # stays on air
                          ("bug", {"media": "javascript:__xss=5"})):
        assert srv.call("POST", "/api/graphics", {"action": "show", "graphic": graphic, "data": data}).status_code == 200
    assert srv.call("POST", "/api/seasons", {"name": f"Сезон {IMG}"}).status_code == 201
    assert srv.call("POST", "/api/members", {"name": f"Игрок {SVG}"}).status_code == 201
    pack = f"? Пакетный вопрос {IMG}\n! {SVG}\n@ {ATTR} (Город)\n".encode()
    assert requests.post(srv.url + "/api/packs?filename=x.4s", data=pack, headers=AUTH, timeout=10).status_code == 201
    yield srv, game, club
    srv.stop()


PAGES = ["/overlays/full", "/overlays/question", "/overlays/lower-third", "/overlays/scoreboard",
         "/overlays/result", "/overlays/table", "/overlays/central-table?game={club}", "/overlays/club-tables?game={club}",
         "/control/", "/control/setup", "/control/graphics", "/control/packs", "/control/club", "/control/admin/",
         "/control/admin/members", "/overlays/ticker", "/overlays/slate", "/overlays/credits", "/overlays/bug",
         "/control/media"]
SHOWN = ["/overlays/question", "/overlays/lower-third", "/control/admin/", "/overlays/slate", "/overlays/credits"]


# Pages loaded side by side, each in its own tab: their loads and idle waits overlap instead of
# adding up. A tab behind another is hidden (no animation frames, so no entrance draws its text):
# each is then brought to the front and looked at as before, visible, one at a time.
TABS = 5


class Quiet:
    """Requests in flight in one tab, any of its frames, from Playwright's request events.
    Playwright's own 'networkidle' also waits for every child frame's lifecycle, which the lazy
    preview frames of /control/graphics in a tab behind another may never report: it timed out
    with every frame complete and nothing in flight (a fresh-clone run; reproduced under load)."""

    def __init__(self, tab: Page) -> None:
        self.tab, self.changed = tab, time.monotonic()
        self.inflight: set[Request] = set()
        tab.on("request", lambda r: self._mark(self.inflight.add, r))
        tab.on("requestfinished", lambda r: self._mark(self.inflight.discard, r))
        tab.on("requestfailed", lambda r: self._mark(self.inflight.discard, r))

    def _mark(self, change: Callable[[Request], None], request: Request) -> None:
        change(request)
        self.changed = time.monotonic()

    def wait(self, idle_s: float = 0.5, timeout_s: float = 30) -> None:
        """Until nothing has been in flight for idle_s (the 500 ms of Playwright's networkidle)."""
        deadline = time.monotonic() + timeout_s
        while self.inflight or time.monotonic() - self.changed < idle_s:
            assert time.monotonic() < deadline, f"{self.tab.url}: still loading {[r.url for r in self.inflight]}"
            self.tab.wait_for_timeout(50)  # lets Playwright deliver the tab's events


def test_markup_in_the_data_never_runs_on_any_page(hostile, chromium: Browser):
    srv, game, club = hostile
    context = chromium.new_context(viewport={"width": 1920, "height": 1080})
    dialogs: list[str] = []
    try:
        tabs = [context.new_page() for _ in range(TABS)]
        quiet = {tab: Quiet(tab) for tab in tabs}
        for tab in tabs:
            tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page = tabs[0]
        page.goto(srv.url + "/control/")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_function("document.body?.dataset.connection === 'connected'", timeout=15_000)
        ran = {}
        shown = {}
        for first in range(0, len(PAGES), TABS):
            batch = list(zip(tabs, PAGES[first:first + TABS]))
            for tab, path in batch:
                tab.goto(srv.url + path.format(club=club, game=game), wait_until="commit")
            for tab, path in batch:
                tab.wait_for_load_state("load")
                quiet[tab].wait()
            for tab, path in batch:
                tab.bring_to_front()
                if path.startswith("/overlays/"):  # its state has arrived over the socket and been drawn
                    tab.wait_for_function("document.body.classList.contains('ready')", timeout=WAIT_MS)
                if path in SHOWN:
                    tab.wait_for_function("t => document.body.innerText.includes(t)", arg=IMG, timeout=WAIT_MS)
                tab.wait_for_timeout(300)  # a window for a handler in the data to fire, if one could
                tab.mouse.move(960, 540)
                for _ in range(3):
                    tab.mouse.move(200 + _ * 500, 300 + _ * 200)
                ran[path] = tab.evaluate("typeof window.__xss === 'undefined' ? null : window.__xss")
                shown[path] = tab.evaluate("document.body.innerText")
        assert sorted(ran) == sorted(PAGES)
        assert {p: v for p, v in ran.items() if v is not None} == {}, "script from the data ran"
        assert dialogs == []
        # the markup is shown as text where the data is on screen
        for path in SHOWN:
            assert IMG in shown[path], path
    finally:
        context.close()
