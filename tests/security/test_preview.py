"""The rundown's preview (the focused item before it goes to air) is an operator's view: an
anonymous `/overlay` client asking for it gets a refusal and nothing of the item; the operators'
token (in the socket's auth; `#token=` on an OBS page) or the panel's login cookie gets it."""
from __future__ import annotations

import json

import pytest
import socketio
from playwright.sync_api import Browser, Page

from overlay.obs.scenes import PREVIEW, browser_urls, build_collection
from tests.web.test_rundowns import Rd, Sock
from tests.browser.helpers import WAIT_MS
from tests.faults.helpers import login
from tests.support import TOKEN, Server, close_client, wait_for

SECRET = "Тайный гость превью"


@pytest.fixture(scope="module")
def focused(shared_server: Server) -> dict:
    """A rundown whose focused item is not on air: a strap with a name nobody may see yet."""
    rd = Rd(shared_server, "Превью закрыто")
    item = rd.add(label="Гость", graphic="lower-third", layer="straps", data={"title": SECRET})
    rd.act("focus", item=item["id"])
    return {"rd": rd, "item": item}


def previews(srv: Server, auth: dict) -> tuple[Sock, dict]:
    sock = Sock(srv, "/overlay", auth)
    return sock, sock.wait("preview")


def test_an_anonymous_preview_gets_nothing_of_the_focused_item(shared_server: Server, focused: dict):
    for auth in ({"preview": True}, {"preview": True, "token": "not-the-token"}):
        sock, first = previews(shared_server, auth)
        try:
            # a later focus change is not sent to it either
            focused["rd"].act("focus", item=focused["item"]["id"])
            seen = json.dumps([first, *list(sock.got.queue)], ensure_ascii=False)
            assert SECRET not in seen and focused["item"]["id"] not in seen
            assert first["error"]["code"] == "preview_needs_operator", first
        finally:
            sock.close()


def test_the_operators_token_gets_the_preview(shared_server: Server, focused: dict):
    sock, first = previews(shared_server, {"preview": True, "token": TOKEN})
    try:
        assert first["item"] == focused["item"]["id"] and first["data"]["title"] == SECRET
    finally:
        sock.close()


def test_the_panels_login_cookie_gets_the_preview(shared_server: Server, focused: dict):
    """The desk's monitor is a same-origin frame of the logged-in panel: its cookie goes along."""
    cookie = "; ".join(f"{k}={v}" for k, v in login(shared_server.url).cookies.items())
    sio = socketio.Client(reconnection=False)
    got: list = []
    sio.on("preview", got.append, namespace="/overlay")
    try:
        sio.connect(shared_server.url, namespaces=["/overlay"], auth={"preview": True}, transports=["polling"],
                    wait_timeout=10, headers={"Cookie": cookie, "Origin": shared_server.url})
        wait_for(lambda: got, what="the preview")
        assert got[0]["item"] == focused["item"]["id"]
    finally:
        close_client(sio)


def _preview_page(chromium: Browser, url: str) -> tuple[Page, object]:
    context = chromium.new_context(viewport={"width": 1920, "height": 1080})
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("document.getElementById('stage').dataset.previewItem !== undefined", timeout=WAIT_MS)
    return page, context


def test_the_preview_page_draws_the_item_only_with_the_token(shared_server: Server, focused: dict,
                                                             chromium: Browser):
    """As OBS opens it (the scene collection's `#token=`), and as anyone else would."""
    collection = build_collection("tv", shared_server.url, preview_token=TOKEN)
    url = next(u for u in browser_urls(collection) if "preview=1" in u)
    assert url.endswith(f"#token={TOKEN}") and PREVIEW in {s["name"] for s in collection["sources"]}
    assert PREVIEW not in {s["name"] for s in build_collection("tv", shared_server.url)["sources"]}
    page, context = _preview_page(chromium, url)
    try:
        title = page.locator("[data-part='lower-third'] [data-ref='title']")
        title.wait_for(state="visible", timeout=WAIT_MS)
        assert title.inner_text() == SECRET
    finally:
        context.close()
    page, context = _preview_page(chromium, f"{shared_server.url}/overlays/show?preview=1")
    try:
        assert page.evaluate("document.getElementById('stage').dataset.previewItem") == ""
        assert SECRET not in page.content() and SECRET not in page.evaluate("document.body.innerText")
    finally:
        context.close()
