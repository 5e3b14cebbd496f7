"""What real OBS cannot be made to do, for the tests: send malformed obs-websocket frames
(`MalformedObs`, a real WebSocket on loopback from Werkzeug's server and simple-websocket), or
accept a connection and never say a word (`Blackhole`). Everything else is tested against real
OBS (real_obs.py). `expected_auth` computes the password answer from the protocol description,
independently of overlay/obs/websocket.py."""
from __future__ import annotations

import base64
import hashlib
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import simple_websocket
from werkzeug.serving import make_server


def expected_auth(password: str, salt: str, challenge: str) -> str:
    step = base64.b64encode(hashlib.sha256(f"{password}{salt}".encode()).digest()).decode()
    return base64.b64encode(hashlib.sha256(f"{step}{challenge}".encode()).digest()).decode()


class MalformedObs:
    """An obs-websocket lookalike that breaks the protocol at `stage`:

    - "hello": its first message is not JSON;
    - "response": Hello and Identified are right (no password), then every request is answered
      with a message that has no `op`.
    """

    def __init__(self, port: int, stage: str) -> None:
        assert stage in ("hello", "response")
        self.port, self.stage = port, stage
        self.connections = 0
        self.requests: list[str] = []
        self._cond = threading.Condition()
        self._server: Any = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> "MalformedObs":
        self._server = make_server("127.0.0.1", self.port, self._app, threaded=True)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    def _app(self, environ: dict, start_response: Any) -> Any:
        ws = simple_websocket.Server.accept(environ, subprotocols=["obswebsocket.json"])
        with self._cond:
            self.connections += 1
            self._cond.notify_all()
        try:
            if self.stage == "hello":
                ws.send("this is not JSON")
            else:
                ws.send(json.dumps({"op": 0, "d": {"obsWebSocketVersion": "5.5.4", "rpcVersion": 1}}))
                json.loads(ws.receive(timeout=10))
                ws.send(json.dumps({"op": 2, "d": {"negotiatedRpcVersion": 1}}))
                while True:
                    message = json.loads(ws.receive())
                    with self._cond:
                        self.requests.append(message["d"]["requestType"])
                        self._cond.notify_all()
                    ws.send(json.dumps({"d": {"requestId": message["d"]["requestId"]}}))  # no op
            ws.receive(timeout=10)  # let the client close
        except (simple_websocket.ConnectionClosed, TypeError, ValueError):
            pass
        raise ConnectionError("websocket finished")  # Werkzeug: the connection is done, no HTTP reply


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
