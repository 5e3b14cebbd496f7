"""Behind a TLS reverse proxy, with deploy/'s configurations run by the real nginx and Caddy:
a writer on the "studio" host, two edges on the "live" host, Redis between them. Login and a
command over HTTPS (Secure cookies, HSTS), an overlay over wss:// (the python client and the
system Chromium), the login throttle counting the real client behind the proxy and ignoring
forged headers from anyone else, and an edge killed under its clients."""
from __future__ import annotations

import re
import socket
import ssl
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import socketio

from tests.deploy.proxies import DEPLOY, Proxy, client_from
from tests.faults.helpers import csrf_of
from tests.support import PASSWORD, ROOT, TOKEN, close_client, edge_status, scale_out, wait_for

pytestmark = pytest.mark.slow
ATTEMPTS = 3


@pytest.fixture(scope="module", params=["nginx", "caddy"])
def stack(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    tmp = tmp_path_factory.mktemp(request.param)
    with scale_out(tmp, edges=2, args=("--proxy", "127.0.0.1"),
                   env={"CHGK_OVERLAY_LOGIN_ATTEMPTS": str(ATTEMPTS), "CHGK_OVERLAY_HSTS_SECONDS": "600"}) as so:
        proxy = Proxy(request.param, tmp / "proxy", so.writer.port, [e.port for e in so.edges])
        so.started.append(proxy)  # stopped in reverse, also when it fails to start
        proxy.start(timeout=120)
        yield {"proxy": proxy, "writer": so.writer, "edges": so.edges, "redis": so.redis}


def try_login(http: requests.Session, url: str, password: str, **kw: Any) -> requests.Response:
    token = csrf_of(http.get(url + "/control/", timeout=10).text)
    return http.post(url + "/control/login", data={"csrf": token, "password": password, "next": "panel"},
                     allow_redirects=False, timeout=10, **kw)


def test_login_and_a_command_over_https(stack: dict):
    proxy, writer = stack["proxy"], stack["writer"]
    http = client_from("127.0.0.2", proxy.cert)
    r = try_login(http, proxy.studio, PASSWORD)
    assert r.status_code in (302, 303), r.text[:300]
    cookie = r.headers["Set-Cookie"]
    assert "chgk_session=" in cookie and "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert r.headers["Strict-Transport-Security"] == "max-age=600"
    csrf = csrf_of(http.get(proxy.studio + "/control/", timeout=10).text)
    before = writer.state("g1")["rev"]
    r = http.post(proxy.studio + "/api/games/g1/commands", json={"type": "spin", "landed": 2},
                  headers={"X-CSRF-Token": csrf}, timeout=10)
    assert r.status_code == 200, r.text
    assert writer.state("g1")["rev"] == before + 1
    # the same writer on its plain-HTTP port (the studio LAN): no Secure cookie, no HSTS
    direct = requests.Session()
    r = try_login(direct, writer.url, PASSWORD)
    assert r.status_code in (302, 303) and "Secure" not in r.headers["Set-Cookie"]
    assert "Strict-Transport-Security" not in r.headers


def test_an_overlay_over_wss_follows_the_writer(stack: dict, chromium: Any):
    proxy, writer = stack["proxy"], stack["writer"]
    got: list[dict] = []
    # polling and the websocket from one address (the websocket is not bound): the proxies keep
    # one client on one edge by its address
    # the client's Engine.IO log (the upgrade's steps) is kept by pytest and shown if this fails
    sio = socketio.Client(reconnection=False, http_session=client_from("127.0.0.1", proxy.cert),
                          engineio_logger=True)
    sio.on("state", got.append, namespace="/overlay")
    try:
        sio.connect(proxy.live, namespaces=["/overlay"], wait_timeout=10)  # long-polling, then the upgrade
    except socketio.exceptions.ConnectionError as e:  # once in ~20 runs (session 17): say what each side saw
        raise AssertionError(f"{e}\n{what_they_logged(stack)}") from e
    page = chromium.new_page(ignore_https_errors=True)
    try:
        assert wait_for(lambda: got and got[-1])["id"] == "g1"
        wait_for(lambda: sio.transport() == "websocket", what="the upgrade to a websocket through the proxy")
        page.goto(proxy.live + "/overlays/scoreboard")
        page.wait_for_function("document.body?.dataset.rev !== undefined && document.body?.dataset.rev !== ''",
                               timeout=30_000)
        rev = writer.state("g1")["rev"]
        auth = {"Authorization": f"Bearer {TOKEN}"}
        r = requests.post(proxy.studio + "/api/games/g1/undo", headers=auth, verify=str(proxy.cert), timeout=10)
        assert r.status_code in (200, 422), r.text  # 422: nothing to undo yet; then spin instead
        if r.status_code == 422:
            requests.post(proxy.studio + "/api/games/g1/commands", json={"type": "spin"}, headers=auth,
                          verify=str(proxy.cert), timeout=10).raise_for_status()
        wait_for(lambda: got[-1]["rev"] == rev + 1, what="the new state over wss://")
        page.wait_for_function(f"document.body?.dataset.rev === '{rev + 1}'", timeout=30_000)
        assert page.evaluate("location.protocol") == "https:"
    finally:
        page.close()
        sio.disconnect()


def what_they_logged(stack: dict) -> str:
    proxy = stack["proxy"]
    logs = [f"--- {proxy.kind}:\n{proxy.output()}"]
    logs += [f"--- edge on {edge.port}:\n{edge.output() or '(no log)'}" for edge in stack["edges"]]
    return "\n".join(logs)


def test_the_throttle_counts_the_real_client_not_the_proxy(stack: dict):
    proxy, writer = stack["proxy"], stack["writer"]
    guesser = client_from("127.0.0.3", proxy.cert)
    for i in range(ATTEMPTS):
        assert try_login(guesser, proxy.studio, f"угадываю-{i}").status_code == 401
    assert try_login(guesser, proxy.studio, "угадываю-ещё").status_code == 429
    # the proxy's own address is not blocked: another client behind it logs in
    assert try_login(client_from("127.0.0.4", proxy.cert), proxy.studio, PASSWORD).status_code in (302, 303)
    # and a direct client cannot pass for others by writing X-Forwarded-For itself
    forger = client_from("127.0.0.5", proxy.cert)
    for i in range(ATTEMPTS):
        r = try_login(forger, writer.url, f"подделка-{i}", headers={"X-Forwarded-For": f"10.9.8.{i}"})
        assert r.status_code == 401
    r = try_login(forger, writer.url, "подделка-ещё", headers={"X-Forwarded-For": "10.9.8.200"})
    assert r.status_code == 429


def test_an_edge_killed_its_clients_move_to_the_other(stack: dict):
    proxy, writer, edges = stack["proxy"], stack["writer"], stack["edges"]
    got: list[dict] = []
    sio = socketio.Client(reconnection=True, reconnection_delay=0.2, reconnection_delay_max=1,
                          http_session=client_from("127.0.0.1", proxy.cert))
    sio.on("state", got.append, namespace="/overlay")
    sio.connect(proxy.live, namespaces=["/overlay"], transports=["websocket"], wait_timeout=10)
    try:
        wait_for(lambda: got)
        serving = wait_for(lambda: [e for e in edges if edge_status(e)["clients"]], what="an edge with the client")
        victim = serving[0]
        other = next(e for e in edges if e is not victim)
        victim.kill()
        wait_for(lambda: edge_status(other)["clients"] >= 1, what="the client on the other edge")
        rev = writer.state("g1")["rev"]
        r = requests.post(proxy.studio + "/api/games/g1/undo", headers={"Authorization": f"Bearer {TOKEN}"},
                          verify=str(proxy.cert), timeout=10)
        if r.status_code == 422:
            r = requests.post(proxy.studio + "/api/games/g1/commands", json={"type": "spin"},
                              headers={"Authorization": f"Bearer {TOKEN}"}, verify=str(proxy.cert), timeout=10)
        assert r.status_code == 200, r.text
        wait_for(lambda: got[-1]["rev"] == rev + 1, what="the latest state through the other edge")
        victim.start(timeout=120)
        wait_for(lambda: edge_status(victim)["synced"], what="the restarted edge to resync")
    finally:
        close_client(sio)


def test_a_picture_uploaded_on_the_studio_host_is_served_on_the_live_host(stack: dict):
    """The media library lives in the writer's data folder: the live host sends /media/ there,
    GET only, and an upload larger than a question pack passes the studio host's body limit."""
    import io
    import os

    from PIL import Image

    from tests.media.test_media_api import png

    proxy = stack["proxy"]
    http = client_from("127.0.0.2", proxy.cert)
    # noise does not compress: a ~7.7 MB PNG, larger than a question pack may be, within 10 MB
    out = io.BytesIO()
    Image.frombytes("RGB", (1600, 1600), os.urandom(1600 * 1600 * 3)).save(out, "PNG")
    picture = out.getvalue()
    assert 6 * 2**20 < len(picture) < 10 * 2**20
    big = png("blue", (2000, 2000), fmt="BMP")  # 12 MB: refused (by the proxy or the server)
    r = http.post(proxy.studio + "/api/media", files={"file": ("logo.png", picture, "image/png")},
                  headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30)
    assert r.status_code == 201, r.text[:300]
    url = r.json()["url"]
    served = http.get(proxy.live + url, timeout=10)
    assert served.status_code == 200 and served.content == picture
    assert served.headers["X-Content-Type-Options"] == "nosniff"
    assert http.delete(proxy.live + url, timeout=10).status_code in (403, 404, 405)  # the live host only reads
    assert http.get(proxy.live + url, timeout=10).status_code == 200
    auth = {"Authorization": f"Bearer {TOKEN}"}
    try:
        refused = http.post(proxy.studio + "/api/media", files={"file": ("big.bmp", big, "image/bmp")},
                            headers=auth, timeout=30).status_code
    except requests.exceptions.ConnectionError:  # SSLError is one
        # the proxy answered 413 and closed before the client had sent the whole body (Caddy
        # stops reading at its limit; a slower client is still writing): refused all the same
        refused = 413
    assert refused == 413
    assert [m["url"] for m in http.get(proxy.studio + "/api/media", headers=auth, timeout=10).json()["media"]] == [url]


# Floods (docs/SECURITY.md, "Floods") ---------------------------------------------------------------

UPGRADE = (b"GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nHost: live.example.org\r\n"
           b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
           b"Sec-WebSocket-Key: Y2hnay1vdmVybGF5LWZsb29k\r\n\r\n")


def tls_to(proxy: Proxy, port: int, source: str) -> ssl.SSLSocket:
    raw = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    return ssl.create_default_context(cafile=str(proxy.cert)).wrap_socket(raw, server_hostname="127.0.0.1")


def status_of(s: ssl.SSLSocket, head: bytes) -> int:
    """Sends a request head, returns the answer's status code (0: closed without an answer)."""
    s.sendall(head)
    got = b""
    while b"\r\n" not in got:
        chunk = s.recv(4096)
        if not chunk:
            return 0
        got += chunk
    return int(got.split(b" ", 2)[1])


def per_address_cap(proxy: Proxy) -> int:
    """The live host's `limit_conn` in the example configuration."""
    site = (DEPLOY / "nginx" / "chgk-overlay.conf").read_text()
    live = site[site.index("server_name live.example.org"):]
    return int(re.search(r"limit_conn chgk_per_address (\d+);", live).group(1))


def test_a_half_sent_request_head_is_closed_by_the_proxy(stack: dict):
    """client_header_timeout (nginx) / timeouts.read_header (Caddy): 10 s, not the defaults."""
    proxy = stack["proxy"]
    s = tls_to(proxy, proxy.live_port, "127.0.0.2")
    try:
        s.sendall(b"GET /api/time HTTP/1.1\r\nHost: live.example.org\r\n")
        s.settimeout(0.2)

        def closed() -> bool:
            try:
                return s.recv(4096) == b""
            except TimeoutError:
                return False
            except (ConnectionResetError, ssl.SSLError):
                return True

        wait_for(closed, timeout=25, what="the proxy to close a request head not sent whole within 10 s")
    finally:
        s.close()


def test_nginx_caps_connections_per_address_and_serves_other_addresses(stack: dict):
    proxy = stack["proxy"]
    if proxy.kind != "nginx":
        # Caddy's standard build has no per-address connection cap: its config must say what to use
        caddyfile = (ROOT / "deploy" / "caddy" / "Caddyfile").read_text(encoding="utf-8")
        assert "ct count" in caddyfile and "nginx" in caddyfile, "the Caddyfile must say how to cap per address"
        return
    cap = per_address_cap(proxy)
    held: list[ssl.SSLSocket] = []
    try:
        for _ in range(cap):  # websockets held open from one address, as a flood of overlays would be
            held.append(tls_to(proxy, proxy.live_port, "127.0.0.2"))
            assert status_of(held[-1], UPGRADE) == 101
        held.append(tls_to(proxy, proxy.live_port, "127.0.0.2"))
        assert status_of(held[-1], UPGRADE) == 429
        # another address is served: a page, and a websocket of its own
        assert client_from("127.0.0.3", proxy.cert).get(proxy.live + "/api/time", timeout=10).ok
        held.append(tls_to(proxy, proxy.live_port, "127.0.0.3"))
        assert status_of(held[-1], UPGRADE) == 101
    finally:
        for s in held:
            s.close()
