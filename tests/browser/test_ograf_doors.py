"""An uploaded graphic cannot leave its frame for another site, nor reach out by WebRTC (issue 37),
in the system Chromium: a graphic (tests/fixtures/ograf-navigator/) tries `location = …`, a
link, a `<meta refresh>` and a form submit towards a stand-in "remote site" (a second local
HTTP server that records every request), carrying its data in the URL, and WebRTC towards a
stand-in STUN server (a UDP socket). Nothing remote is drawn on `/overlays/show`, no request
and no datagram reaches the stand-ins; the output removes a frame that navigated, and the desk
says why and takes the item off air."""
from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.helpers import WAIT_MS, Tab, screenshot_dir
from tests.browser.test_ograf_render import FIXTURES, Desk, Show, count, drawn, package
from tests.support import Server, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

RED = b"<!doctype html><html><body style='margin:0;background:#f00;width:1920px;height:1080px'>REMOTE" \
      b"<script>new Image().src='/script-ran'</script></body></html>"


# The stand-ins run in a process of their own: no thread of the test's to wait for when they close
# (a stand-in served from a thread once held a whole run in its teardown, in a worker where an
# earlier module had left eventlet's hub on the main thread).
STAND_IN = r"""
import http.server, socket, sys, threading
red, log = sys.argv[1].encode(), sys.argv[2]
def note(kind, text):
    with open(log, "a", encoding="utf-8") as f:
        f.write(kind + " " + text + "\n")
class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args): pass
    def do_GET(self):
        note("GET", self.path)
        self.send_response(200); self.send_header("Content-Type", "text/html"); self.end_headers()
        self.wfile.write(red)
    do_POST = do_GET
httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind(("127.0.0.1", 0))
def listen():
    while True:
        note("UDP", repr(udp.recv(2048)))
threading.Thread(target=listen, daemon=True).start()
print(httpd.server_address[1], udp.getsockname()[1], flush=True)
httpd.serve_forever()
"""


class Remote:
    """The stand-in for another site (every request it gets is recorded; it answers a red page)
    and a STUN server's address (every datagram recorded), in a process of their own."""

    def __init__(self, folder: Path) -> None:
        self.log = folder / "stand-in.log"
        self.log.write_text("", encoding="utf-8")
        self.proc = subprocess.Popen([sys.executable, "-c", STAND_IN, RED.decode(), str(self.log)],
                                     stdout=subprocess.PIPE, text=True)
        http_port, udp_port = self.proc.stdout.readline().split()
        self.url = f"http://127.0.0.1:{http_port}"
        self.stun = f"stun:127.0.0.1:{udp_port}"

    def _seen(self, kind: str) -> list[str]:
        return [line[len(kind) + 1:] for line in self.log.read_text(encoding="utf-8").splitlines()
                if line.startswith(kind + " ")]

    @property
    def requests(self) -> list[str]:
        return self._seen("GET")

    @property
    def datagrams(self) -> list[str]:
        return self._seen("UDP")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        self.proc.stdout.close()


@pytest.fixture
def remote(tmp_path: Path) -> Iterator[Remote]:
    r = Remote(tmp_path)
    yield r
    r.close()


def red(img: Any) -> int:
    return count(img, (0, 0, 1920, 1080), (0xff, 0, 0), 30)


def test_a_graphic_cannot_put_another_site_on_air(server_factory: Callable[..., Server], chromium: Browser,
                                                   remote: Remote, tmp_path: Path) -> None:
    srv = server_factory().start()
    r = srv.http.post(srv.url + "/api/ograf", timeout=60, files={"file": ("n.zip", package(FIXTURES / "ograf-navigator"))})
    assert r.status_code == 201, r.text
    tab = Tab(chromium)
    page = tab.open(f"{srv.url}/overlays/show")
    show = Show(srv, page, screenshot_dir(tmp_path), tab.errors)
    ctx = chromium.new_context(viewport={"width": 1366, "height": 900}, locale="ru-RU")
    desk = Desk(ctx.new_page(), srv).open()
    desk.page.select_option("#rd-select", show.rid)

    for how in ("location", "anchor", "meta"):
        item = show.add("navigator", {"how": how, "target": f"{remote.url}/{how}", "secret": "s3cr3t"}, layer=how)
        show.act("take", item)
        # the output: the frame that left is gone at once, a hidden mark says why
        page.wait_for_function(
            "(item) => document.querySelector(`.ograf-refused[data-item='${item}'][data-hostile]`)"
            " && !document.querySelector(`iframe.ograf-frame[data-item='${item}']`)", arg=item, timeout=WAIT_MS)
        assert red(show.shot(f"navigator-{how}")) == 0, f"{how}: the remote page is drawn"
        # the desk: said in the operator's language, and the item taken off air
        told = desk.page.locator('.notice[data-code="ograf_hostile"]')
        expect(told).to_contain_text("пыталась показать чужую страницу")
        wait_for(lambda: how not in srv.api("GET", f"/api/rundowns/{show.rid}")["program"],
                 timeout=WAIT_MS / 1000, what=f"{how}: the item off air")
        page.wait_for_function("(item) => !document.querySelector(`.ograf-frame[data-item='${item}']`)",
                               arg=item, timeout=WAIT_MS)
        desk.page.evaluate("() => document.querySelectorAll('.notice').forEach((n) => n.remove())")

    # a form: the sandbox refuses to submit it; the graphic stays, drawn as it was
    item = show.add("navigator", {"how": "form", "target": f"{remote.url}/form"}, layer="form")
    show.act("take", item)
    show.calls(item, "load", "playAction")
    expect(show.frame(item).locator("#report")).to_contain_text("navigator form")
    assert red(show.shot("navigator-form")) == 0
    show.out(item, "navigator-form")

    assert remote.requests == [], remote.requests
    assert drawn(show.shot("navigator-end")) == 0
    assert desk.errors == [], desk.errors
    ctx.close()
    tab.close()


def test_a_graphic_has_no_webrtc(server_factory: Callable[..., Server], chromium: Browser,
                                 remote: Remote, tmp_path: Path) -> None:
    """No peer connection in the frame (CSP governs none of WebRTC), so no ICE datagram to the
    stand-in's STUN port; webkitRTCPeerConnection neither."""
    srv = server_factory().start()
    r = srv.http.post(srv.url + "/api/ograf", timeout=60, files={"file": ("n.zip", package(FIXTURES / "ograf-navigator"))})
    assert r.status_code == 201, r.text
    tab = Tab(chromium)
    page = tab.open(f"{srv.url}/overlays/show")
    show = Show(srv, page, screenshot_dir(tmp_path), tab.errors)
    item = show.add("navigator", {"how": "webrtc", "target": remote.stun}, layer="rtc")
    show.act("take", item)
    show.calls(item, "load", "playAction")
    expect(show.frame(item).locator("#report")).to_contain_text("webrtc: blocked")
    show.out(item, "navigator-webrtc")
    assert remote.datagrams == [], remote.datagrams
    tab.close()
