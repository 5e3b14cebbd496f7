"""Screens find the server again by themselves — after a network cut made on the server's side
(`ss -K` destroys the server's end of every connection; the peer gets a reset) and after a
crash and restart — and show the state as it is now, including what changed while they were
away. Python Socket.IO clients stand for scripts and surfaces; Chromium runs the real overlay
page and the real control panel, never reloaded.
"""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import Browser, Page

from tests.faults.helpers import Watcher, drop_connections, tv_spec, watching
from tests.support import PASSWORD, TOKEN, Server

# Every value the page's data-connection takes from now on, in order, kept by the page itself.
# Each record's oldValue is the value its mutation replaced: two changes made in one task (one
# observer callback) are both kept, not only the value the attribute ends with.
CONNECTION_LOG = """
window.__conn = [document.body.dataset.connection];
new MutationObserver((records) => {
  const values = records.slice(1).map((r) => r.oldValue);
  values.push(document.body.dataset.connection);
  for (const now of values) {
    if (window.__conn[window.__conn.length - 1] !== now) window.__conn.push(now);
  }
}).observe(document.body, {attributes: true, attributeOldValue: true, attributeFilter: ["data-connection"]});
window.__same_page = 1;  // gone if anything reloads the page
"""

# The page's Socket.IO transport. A page starts on HTTP long-polling and upgrades to a websocket;
# until the upgrade is done a cut may find no poll under way (only the upgrade's probe, which the
# client drops quietly) and the next poll simply opens a new connection: nothing is lost to see.
OVERLAY_TRANSPORT = "window.chgkOverlay?.socket?.io?.engine?.transport?.name"
PANEL_TRANSPORT = "window.chgkPanel?.conn?.socket?.io?.engine?.transport?.name"


def auth() -> dict:
    return {"Authorization": f"Bearer {TOKEN}"}


def command(srv: Server, game: str, **body) -> dict:
    """Over a fresh connection: the session's pooled one may have just been cut."""
    r = requests.post(f"{srv.url}/api/games/{game}/commands", json=body, headers=auth(), timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["state"]


def show(srv: Server, title: str) -> dict:
    r = requests.post(f"{srv.url}/api/graphics", json={"action": "show", "graphic": "lower-third",
                                                       "data": {"title": title}}, headers=auth(), timeout=10)
    assert r.status_code == 200, r.text
    return r.json()


def meanwhile(srv: Server, game: str, title: str, **body) -> tuple[dict, dict]:
    """While `srv` is down, another server process on the same data folder (another port) moves
    the game on and takes a graphic to air — so the screens can only learn of it on reconnect."""
    other = Server(srv.data, demo=False).start()
    try:
        return command(other, game, **body), show(other, title)
    finally:
        other.stop()


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the module: each test opens a game of its own and puts it on air; the
    restarts bring the same data folder back on the same port, as an operator's would."""
    server = Server(tmp_path_factory.mktemp("reconnect") / "data", demo=False).start()
    yield server
    server.stop()


@pytest.fixture
def srv(running: Server) -> Server:
    """The module's server, up (a test that failed between a kill and its restart left it down)."""
    if running.proc is None or running.proc.poll() is not None:
        running.start()
    return running


def open_game(srv: Server) -> str:
    return srv.create(tv_spec(), on_air=True)


@pytest.fixture
def watched(srv: Server) -> Iterator[tuple[str, tuple[Watcher, Watcher]]]:
    """A game on air, watched by an overlay socket and a panel socket."""
    game = open_game(srv)
    with watching(srv) as watchers:
        yield game, watchers


def test_socket_clients_reconnect_after_a_server_side_cut(srv: Server, watched: tuple[str, tuple[Watcher, Watcher]]):
    game, watchers = watched
    for cut in (1, 2):
        killed = drop_connections(srv.port)
        assert killed.count(f":{srv.port}") >= 2, killed
        state = command(srv, game, **({"type": "spin", "landed": 4} if cut == 1 else {"type": "start_timer"}))
        graphics = show(srv, f"После обрыва {cut}")
        for w in watchers:
            w.wait(lambda w: w.reconnected(cut) and w.last()["rev"] == state["rev"]
                   and w.graphics[-1]["seq"] == graphics["seq"], 10,
                   f"{w.ns} to reconnect after cut {cut} and show rev {state['rev']}")
            assert w.last()["round"]["sector"] == 4
            assert w.graphics[-1]["graphics"]["lower-third"]["data"]["title"] == f"После обрыва {cut}"
    assert srv.proc.poll() is None


def test_socket_clients_reconnect_after_a_restart_and_see_what_changed_meanwhile(
        srv: Server, watched: tuple[str, tuple[Watcher, Watcher]]):
    game, watchers = watched
    srv.kill()
    state, graphics = meanwhile(srv, game, "Пока сервер лежал", type="spin", landed=7)
    srv.start()
    for w in watchers:
        w.wait(lambda w: w.reconnected(1) and w.last()["rev"] == state["rev"]
               and w.graphics[-1]["seq"] == graphics["seq"], 15, f"{w.ns} to reconnect")
        assert w.last()["round"]["sector"] == 7
        revs = w.revs(game)
        assert revs == sorted(revs)


# Chromium ------------------------------------------------------------------------------------------

def wait_for(page: Page, attribute: str, rev: int, timeout_ms: int = 15_000) -> None:
    page.wait_for_function(f"r => document.body?.dataset.{attribute} === String(r)", arg=rev, timeout=timeout_ms)


def test_overlay_pages_and_the_panel_reconnect_after_a_cut_and_after_a_restart(srv: Server, chromium: Browser):
    game = open_game(srv)
    context = chromium.new_context(viewport={"width": 1920, "height": 1080})
    try:
        follows = context.new_page()
        follows.goto(f"{srv.url}/overlays/scoreboard")
        pinned = context.new_page()
        pinned.goto(f"{srv.url}/overlays/full?game={game}")
        panel = context.new_page()
        panel.goto(f"{srv.url}/control/")
        panel.fill("input[name=password]", PASSWORD)
        panel.click("button[type=submit]")
        overlays = [follows, pinned]
        for page in overlays:
            page.wait_for_function("document.body.classList.contains('ready')", timeout=15_000)
            wait_for(page, "rev", 0)
        wait_for(panel, "basisRev", 0)
        for page in (*overlays, panel):
            page.evaluate(CONNECTION_LOG)
        # the cut must find every page on its held websocket, or it may miss one
        for page, transport in ((follows, OVERLAY_TRANSPORT), (pinned, OVERLAY_TRANSPORT), (panel, PANEL_TRANSPORT)):
            page.wait_for_function(f"{transport} === 'websocket'", timeout=15_000)

        # 1. the server drops every connection; the game moves on before anyone is back
        drop_connections(srv.port)
        state = command(srv, game, type="spin", landed=3)
        state = command(srv, game, type="start_timer")
        state = command(srv, game, type="judge", correct=True)
        for page in overlays:
            wait_for(page, "rev", state["rev"])
        wait_for(panel, "basisRev", state["rev"])
        follows.wait_for_function("document.querySelector('[data-ref=experts]').textContent === '1'")
        assert panel.inner_text("#score-experts") == "1"

        # 2. the server is killed; another process moves the game on; the server comes back
        srv.kill()
        state, graphics = meanwhile(srv, game, "После перезапуска", type="spin", landed=6)
        srv.start()
        for page in overlays:
            wait_for(page, "rev", state["rev"])
            wait_for(page, "graphicsSeq", graphics["seq"])
        wait_for(panel, "basisRev", state["rev"])
        follows.wait_for_function("document.body?.dataset.connection === 'connected'")

        for name, page in (("scoreboard", follows), ("full pinned", pinned), ("panel", panel)):
            assert page.evaluate("window.__same_page") == 1, f"{name} was reloaded"
            seen = page.evaluate("window.__conn")
            assert seen.count("lost") >= 2 and seen[-1] == "connected", (name, seen)
    finally:
        context.close()
