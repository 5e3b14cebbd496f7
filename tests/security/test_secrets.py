"""The operator password, the token and the session key never appear in the server's output
(stdout and stderr, captured for a whole session full of mistakes: failed logins with the token
typed as the password, the password sent as a bearer token, bad sockets, bad OSC) nor in any
HTTP response, header or page — whoever asks: nobody, a token holder or a logged-in panel."""
from __future__ import annotations

import re
import secrets
import socket
import time
from pathlib import Path

import requests
import socketio

from tests.faults.helpers import csrf_of, server_output, session_payload, tv_spec
from tests.support import Server, free_port


def unique(prefix: str) -> str:
    return f"{prefix}-{secrets.token_hex(12)}"


def routes() -> list[str]:
    import tempfile

    from overlay.web.app import create_app
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"DATA": tmp, "PASSWORD": "x", "TOKEN": "y", "ASYNC_MODE": "threading"})
        out = [r.rule for r in app.url_map.iter_rules() if "GET" in r.methods]
        app.extensions["chgk"].store.close()
    return sorted(out)


def test_secrets_are_never_logged_nor_answered(tmp_path: Path):
    password, token = unique("pw"), unique("tok")
    osc_port = free_port(socket.SOCK_DGRAM)
    srv = Server(tmp_path / "data", demo=True, env={"CHGK_OVERLAY_PASSWORD": password, "CHGK_OVERLAY_TOKEN": token},
                 args=("--osc-listen", f"127.0.0.1:{osc_port}"))
    srv.http.headers["Authorization"] = f"Bearer {token}"
    srv.start()
    try:
        url = srv.url
        key = (srv.data / "secret_key").read_text().strip()
        answers = []
        # a session that works -----------------------------------------------------------------
        panel = requests.Session()
        csrf = csrf_of(panel.get(url + "/control/", timeout=10).text)
        r = panel.post(url + "/control/login", data={"csrf": csrf, "password": password}, allow_redirects=False,
                       timeout=10)
        assert r.status_code in (302, 303)
        game = srv.create(tv_spec())
        srv.command(game, type="spin", landed=2)
        # every GET route, as nobody, as a token holder and as the logged-in panel ------------------
        for rule in routes():
            path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: {"game_id": game, "name": "scoreboard",
                                                           "filename": "themes/classic.css"}.get(m.group(1), "1"), rule)
            for who in (requests, srv.http, panel):
                resp = who.get(url + path, timeout=10, allow_redirects=False)
                headers = {k: v for k, v in resp.headers.items() if k.lower() != "set-cookie"}
                answers.append((f"{path} ({'anon' if who is requests else 'token' if who is srv.http else 'panel'})",
                                resp.text + repr(headers)))
        # a session full of mistakes ---------------------------------------------------------------
        anon = requests.Session()
        for typed in (token, password + "x", password[:-1], f"{password} ", key):
            csrf = csrf_of(anon.get(url + "/control/", timeout=10).text)
            resp = anon.post(url + "/control/login", data={"csrf": csrf, "password": typed}, timeout=10)
            answers.append((f"login mistake {resp.status_code}", resp.text + repr(dict(resp.headers))))
        for bearer in (password, key, token + "x", f"{token} {password}"):
            for resp in (requests.get(url + "/api/games", headers={"Authorization": f"Bearer {bearer}"}, timeout=10),
                         requests.post(url + "/api/games/g1/commands", json={"type": "spin", "token": token},
                                       headers={"Authorization": f"Bearer {bearer}"}, timeout=10)):
                answers.append((f"bearer mistake {resp.status_code}", resp.text + repr(dict(resp.headers))))
        for auth in ({"token": password}, {"token": key}, {"password": password}):
            client = socketio.Client(reconnection=False)
            try:
                client.connect(url, namespaces=["/control"], auth=auth, transports=["websocket"], wait_timeout=5)
            except socketio.exceptions.ConnectionError:
                pass
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as osc:
            padded = password.encode() + b"\0" * (4 - len(password) % 4)
            for dgram in (b"/chgk/login\0" + b",s\0\0" + padded, b"garbage " + token.encode()):
                osc.sendto(dgram, ("127.0.0.1", osc_port))
        time.sleep(0.3)  # OSC refusals are logged from the receive loop
        for value in panel.cookies.values():
            answers.append(("session cookie", session_payload(value) if "." in value else value))
        logout_csrf = csrf_of(panel.get(url + "/control/", timeout=10).text)
        panel.post(url + "/control/logout", data={"csrf": logout_csrf}, timeout=10)
    finally:
        srv.stop()
    output = server_output(srv)
    assert "listening on" in output  # the capture works
    for name, secret in (("password", password), ("token", token), ("session key", key)):
        assert secret not in output, f"the {name} is in the server's output"
        leaked = [where for where, text in answers if secret in text]
        assert leaked == [], f"the {name} is in HTTP answers: {leaked[:5]}"


def test_a_generated_password_is_shown_once_and_only_at_the_first_start(tmp_path: Path):
    env = {"CHGK_OVERLAY_PASSWORD": "", "CHGK_OVERLAY_TOKEN": ""}
    srv = Server(tmp_path / "data", demo=False, env=env).start()
    try:
        password = (srv.data / "operator_password").read_text().strip()
        assert oct((srv.data / "operator_password").stat().st_mode & 0o777) == "0o600"
        assert oct((srv.data / "secret_key").stat().st_mode & 0o777) == "0o600"
        first = server_output(srv)
        assert first.count(password) == 1
        srv.kill()
        srv.start()
        requests.get(srv.url + "/control/", timeout=10)
    finally:
        srv.stop()
    assert server_output(srv).count(password) == 1, "the generated password was printed again"
