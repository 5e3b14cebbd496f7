"""Small doors: the audience QR code does not follow a forged `Host`, the database and the data
folder are the server user's alone, and anonymous `hello`s cannot grow the operators' list of
overlays without bound. Real server processes, real sockets."""
from __future__ import annotations

import io
import sqlite3
import stat
from pathlib import Path

import requests
import segno
import websocket

from tests.support import Server, wait_for


def qr_of(url: str) -> bytes:
    out = io.BytesIO()
    segno.make(url, error="m", micro=False).save(out, kind="svg", scale=10, border=2, dark="#000000",
                                                 light="#ffffff", xmldecl=False, svgns=True, title=None)
    return out.getvalue()


def test_the_qr_code_does_not_follow_a_forged_host(shared_server: Server):
    """No LIVE_URL and no proxy: a Host naming another site gets 421 and no code; the address
    the server was really reached on (127.0.0.1, localhost) still gets its own."""
    for host in ("evil.example", "evil.example:80", "203.0.113.7", "[2001:db8::1]:5000"):
        r = requests.get(shared_server.url + "/live/qr.svg", headers={"Host": host}, timeout=10)
        assert r.status_code == 421 and "LIVE_URL" in r.text, (host, r.status_code)
        assert b"<svg" not in r.content
    port = shared_server.port
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        r = requests.get(shared_server.url + "/live/qr.svg", headers={"Host": host}, timeout=10)
        assert r.status_code == 200 and r.content == qr_of(f"http://{host}/live"), host


def test_a_trusted_proxy_passes_the_public_host_on(tmp_path: Path):
    srv = Server(tmp_path / "data", args=("--proxy", "127.0.0.1")).start()
    try:
        r = requests.get(srv.url + "/live/qr.svg", timeout=10,
                         headers={"X-Forwarded-Host": "live.example.org", "X-Forwarded-Proto": "https"})
        assert r.status_code == 200 and r.content == qr_of("https://live.example.org/live")
    finally:
        srv.stop()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_database_and_data_folder_are_private(tmp_path: Path):
    data = tmp_path / "data"
    srv = Server(data).start()
    try:
        srv.play("g1", "spin", landed=2)  # a commit: the WAL and its index exist
        db = data / "chgk.sqlite3"
        for path in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            assert path.exists() and mode(path) == 0o600, (path.name, oct(mode(path)))
        assert mode(data) == 0o700 and mode(data / "secret_key") == 0o600
    finally:
        srv.stop()


def test_an_older_world_readable_database_is_tightened(tmp_path: Path):
    data = tmp_path / "old"
    data.mkdir()
    db = data / "chgk.sqlite3"
    sqlite3.connect(db).close()
    db.chmod(0o644)
    srv = Server(data).start()
    try:
        assert mode(db) == 0o600
    finally:
        srv.stop()


MAX_LISTED = 200  # overlay/broadcast/hub.py: how many overlays the operators' list holds at most


def test_anonymous_hellos_list_a_bounded_number_of_overlays(server: Server):
    url = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket"
    listed = lambda: server.api("GET", "/api/overlays")["overlays"]  # noqa: E731
    before = len(listed())
    socks = []
    try:
        for i in range(MAX_LISTED + 5):
            ws = websocket.create_connection(url, timeout=10)
            assert ws.recv().startswith("0")
            ws.send("40/overlay,")
            for _ in range(3):  # twice on one connection: still one entry
                ws.send(f'42/overlay,["hello",{{"graphic":"flood","page":"/overlays/flood?n={i}"}}]')
            socks.append(ws)
        for ws in socks:  # a round trip on every connection after its hellos
            ws.send('42/overlay,7["time"]')
            while not ws.recv().startswith("43/overlay,7"):
                pass
        assert len(listed()) == MAX_LISTED, len(listed())
        for ws in socks[:10]:
            ws.close()
        wait_for(lambda: len(listed()) == MAX_LISTED - 10, what="closed connections off the list")
    finally:
        for ws in socks:
            ws.close()
    wait_for(lambda: len(listed()) == before, what="the list back to the server's own overlays")
