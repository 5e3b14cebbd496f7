"""An overlay page opens a websocket first (static/lib/client.js), which the server holds with no
thread of its own (overlay/broadcast/lean.py); behind a proxy that refuses websockets — a
corporate proxy, an nginx without the Upgrade lines — the same page falls back to long-polling
and draws the same. Real Chromium, a real server, and a small TCP proxy here that answers every
websocket upgrade 403 and passes everything else through."""
from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.browser.helpers import Tab
from tests.support import Server, wait_for

TRANSPORT = "window.chgkOverlay?.socket?.io?.engine?.transport?.name"


class NoWebsocketProxy:
    """Loopback TCP proxy: a connection whose first request asks for a websocket gets a 403."""

    def __init__(self, backend_port: int) -> None:
        self.backend = backend_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.refused = 0
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(65536)
            if not chunk:
                client.close()
                return
            head += chunk
        if b"\r\nupgrade: websocket" in head.lower():
            self.refused += 1
            client.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            client.close()
            return
        upstream = socket.create_connection(("127.0.0.1", self.backend))
        upstream.sendall(head)
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()
        _pipe(client, upstream)

    def close(self) -> None:
        self.listener.close()


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while chunk := src.recv(65536):
            dst.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@pytest.fixture
def proxy(server: Server) -> Iterator[NoWebsocketProxy]:
    p = NoWebsocketProxy(server.port)
    yield p
    p.close()


def listed_transports(srv: Server) -> list[str]:
    return sorted(o["transport"] for o in srv.api("GET", "/api/overlays")["overlays"])


def test_an_overlay_opens_a_websocket_and_falls_back_to_polling_where_a_proxy_refuses_it(
        server: Server, proxy: NoWebsocketProxy, chromium: Browser):
    game = server.api("GET", "/api/games")["games"][0]["id"]
    direct, behind = Tab(chromium), Tab(chromium)
    polls: dict[str, list[str]] = {"direct": [], "behind": []}
    for name, tab in (("direct", direct), ("behind", behind)):
        tab.page.on("request", lambda r, name=name: "transport=polling" in r.url and polls[name].append(r.url))
    try:
        direct.open(f"{server.url}/overlays/scoreboard")
        assert direct.page.evaluate(TRANSPORT) == "websocket" and polls["direct"] == []  # no polling first
        behind.open(f"{proxy.url}/overlays/scoreboard")
        assert proxy.refused >= 1 and behind.page.evaluate(TRANSPORT) == "polling" and polls["behind"]
        wait_for(lambda: listed_transports(server) == ["polling", "websocket"], what="both pages listed")
        rev = server.play(game, "spin", landed=5)["rev"]
        for tab in (direct, behind):
            tab.page.wait_for_function(f"document.body.dataset.rev === '{rev}'", timeout=20_000)
            assert tab.page.evaluate("document.body.dataset.connection") == "connected"
        # the refused upgrade is the proxy's answer, seen by the browser; nothing else went wrong
        assert [e for e in behind.errors if "403" not in e and "WebSocket" not in e] == []
        assert direct.errors == []
    finally:
        direct.close()
        behind.close()
