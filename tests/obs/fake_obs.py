"""A small obs-websocket 5 server for the tests: a real WebSocket on loopback (Werkzeug's server
and simple-websocket), written from the protocol description, independent of the client in
overlay/obs/websocket.py. It checks the password challenge itself and records every request."""
from __future__ import annotations

import base64
import hashlib
import json
import secrets
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import simple_websocket
from werkzeug.serving import make_server

DEFAULT_SCENES = ("ЧГК · Игра", "ЧГК · Стол", "ЧГК · Вопрос", "ЧГК · Блиц", "ЧГК · Итог")


def expected_auth(password: str, salt: str, challenge: str) -> str:
    step = base64.b64encode(hashlib.sha256(f"{password}{salt}".encode()).digest()).decode()
    return base64.b64encode(hashlib.sha256(f"{step}{challenge}".encode()).digest()).decode()


class FakeObs:
    def __init__(self, port: int, password: str = "", scenes: tuple[str, ...] = DEFAULT_SCENES) -> None:
        self.port, self.password, self.scenes = port, password, set(scenes)
        self.program: str | None = None
        self.requests: list[tuple[str, dict]] = []
        self.identified = 0
        self.auth_failures = 0
        self.subprotocols: list[str | None] = []
        self._cond = threading.Condition()
        self._sockets: list[simple_websocket.Server] = []
        self._server: Any = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> "FakeObs":
        self._server = make_server("127.0.0.1", self.port, self._app, threaded=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """OBS quits: the listener and every open connection go away."""
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        for ws in list(self._sockets):
            try:
                ws.close(reason=1001, message="OBS is shutting down")
            except Exception:
                pass
        self._sockets.clear()

    def switches(self) -> list[str]:
        with self._cond:
            return [d.get("sceneName") for t, d in self.requests if t == "SetCurrentProgramScene"]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    # the server ----------------------------------------------------------------------------------

    def _app(self, environ: dict, start_response: Any) -> Any:
        ws = simple_websocket.Server.accept(environ, subprotocols=["obswebsocket.json"])
        self._sockets.append(ws)
        try:
            self._session(ws)
        except simple_websocket.ConnectionClosed:
            pass
        finally:
            if ws in self._sockets:
                self._sockets.remove(ws)
        raise ConnectionError("websocket finished")  # Werkzeug: the connection is done, no HTTP reply

    def _send(self, ws: simple_websocket.Server, op: int, d: dict) -> None:
        ws.send(json.dumps({"op": op, "d": d}))

    def _session(self, ws: simple_websocket.Server) -> None:
        with self._cond:
            self.subprotocols.append(ws.subprotocol)
        hello: dict[str, Any] = {"obsWebSocketVersion": "5.5.4", "rpcVersion": 1}
        salt, challenge = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        if self.password:
            hello["authentication"] = {"challenge": challenge, "salt": salt}
        self._send(ws, 0, hello)
        identify = json.loads(ws.receive(timeout=5))
        assert identify["op"] == 1 and identify["d"]["rpcVersion"] == 1
        if self.password and identify["d"].get("authentication") != expected_auth(self.password, salt, challenge):
            with self._cond:
                self.auth_failures += 1
                self._cond.notify_all()
            ws.close(reason=4009, message="Authentication failed.")
            return
        self._send(ws, 2, {"negotiatedRpcVersion": 1})
        with self._cond:
            self.identified += 1
            self._cond.notify_all()
        while True:
            message = json.loads(ws.receive())
            if message["op"] != 6:
                continue
            d = message["d"]
            kind, data = d["requestType"], d.get("requestData") or {}
            status: dict[str, Any] = {"result": True, "code": 100}
            response: dict[str, Any] = {}
            if kind == "SetCurrentProgramScene":
                if data.get("sceneName") in self.scenes:
                    self.program = data["sceneName"]
                else:
                    status = {"result": False, "code": 600,
                              "comment": f"No source was found by the name of `{data.get('sceneName')}`."}
            elif kind == "GetVersion":
                response = {"obsVersion": "30.2.3", "obsWebSocketVersion": "5.5.4", "rpcVersion": 1}
            else:
                status = {"result": False, "code": 204, "comment": "Your request type is not valid."}
            with self._cond:
                self.requests.append((kind, data))
                self._cond.notify_all()
            self._send(ws, 7, {"requestType": kind, "requestId": d["requestId"], "requestStatus": status,
                               "responseData": response})


class Blackhole:
    """A TCP port that accepts connections and never says a word (a hung OBS, a firewall)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def close(self) -> None:
        for conn in self.accepted:
            conn.close()
        self.sock.close()
