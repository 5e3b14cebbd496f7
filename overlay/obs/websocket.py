"""A small obs-websocket 5 client: connect, identify (with the password challenge), request.

The protocol (obs-websocket's docs/generated/protocol.md): over a WebSocket with subprotocol
`obswebsocket.json`, OBS sends Hello (op 0) — with `authentication: {challenge, salt}` when a
password is set —, the client sends Identify (op 1), OBS answers Identified (op 2) or closes the
connection (4009: wrong password). Requests are op 6, their responses op 7 with the same
`requestId`. We subscribe to no events.

Blocking calls with short timeouts: run it in a background task (overlay/obs/control.py), never
on the path of a command. Under eventlet the sockets are green and only that task waits.
"""
from __future__ import annotations

import base64
import hashlib
import itertools
import json
import struct
from typing import Any
from urllib.parse import urlsplit

RPC_VERSION = 1
SUBPROTOCOL = "obswebsocket.json"
OP_HELLO, OP_IDENTIFY, OP_IDENTIFIED, OP_EVENT, OP_REQUEST, OP_RESPONSE = 0, 1, 2, 5, 6, 7
STATUS_SUCCESS = 100
CLOSE_REASONS = {  # obs-websocket's WebSocketCloseCode values an operator may meet
    1001: "OBS is shutting down",
    4002: "OBS could not read a message from us",
    4007: "OBS says we did not identify",
    4008: "OBS says we identified twice",
    4009: "OBS refused the password: compare obs.toml's password with OBS → Tools → WebSocket Server Settings",
    4010: "this OBS speaks another obs-websocket version (5.x needed)",
    4011: "OBS disconnected us (kicked)",
}
_ids = itertools.count(1)


class ObsError(Exception):
    """OBS cannot be reached, refused us or a request; `message` says what to do about it."""

    def __init__(self, message: str, code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class ObsAuthError(ObsError):
    """The password is missing or wrong: retrying soon will not help."""


def auth_response(password: str, salt: str, challenge: str) -> str:
    """base64(sha256(base64(sha256(password + salt)) + challenge)), as obs-websocket 5 asks."""
    secret = base64.b64encode(hashlib.sha256((password + salt).encode()).digest()).decode()
    return base64.b64encode(hashlib.sha256((secret + challenge).encode()).digest()).decode()


def check_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise ValueError(f"expected ws://HOST:PORT (OBS's default is ws://127.0.0.1:4455), got {url!r}")
    return url


class ObsSocket:
    """One identified connection to obs-websocket."""

    def __init__(self, url: str, password: str = "", timeout: float = 2.0) -> None:
        self.url = check_url(url)
        self.password = password or ""
        self.timeout = timeout
        self.ws: Any = None
        self.hello: dict[str, Any] = {}

    def connect(self) -> dict[str, Any]:
        """Open and identify; returns OBS's Hello (obsWebSocketVersion, rpcVersion)."""
        try:
            import websocket  # websocket-client: only needed when OBS control is configured
        except ImportError:  # pragma: no cover - depends on the installation
            raise ObsError("OBS control needs the websocket-client package: pip install websocket-client") from None
        try:
            # http_no_proxy "*": OBS is on the studio's network, never behind a web proxy.
            self.ws = websocket.create_connection(self.url, timeout=self.timeout, subprotocols=[SUBPROTOCOL],
                                                  http_no_proxy=["*"], enable_multithread=False)
        except Exception as exc:
            raise ObsError(f"cannot connect to OBS at {self.url}: {_why(exc)}") from None
        try:
            hello = self._expect(OP_HELLO)
            self.hello = hello
            identify: dict[str, Any] = {"rpcVersion": RPC_VERSION, "eventSubscriptions": 0}
            challenge = hello.get("authentication")
            if challenge:
                if not self.password:
                    raise ObsAuthError("OBS asks for a password: set it in obs.toml (password = \"…\")", 4009)
                identify["authentication"] = auth_response(self.password, challenge["salt"], challenge["challenge"])
            self._send(OP_IDENTIFY, identify)
            self._expect(OP_IDENTIFIED)
        except Exception:
            self.close()
            raise
        return hello

    def request(self, request_type: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one request and wait for its response; returns `responseData` ({} when none)."""
        request_id = f"chgk-{next(_ids)}"
        body: dict[str, Any] = {"requestType": request_type, "requestId": request_id}
        if data is not None:
            body["requestData"] = data
        self._send(OP_REQUEST, body)
        while True:
            reply = self._expect(OP_RESPONSE, skip=(OP_EVENT,))
            if reply.get("requestId") != request_id:
                continue  # a late answer to an earlier request that timed out
            status = reply.get("requestStatus") or {}
            if not status.get("result"):
                comment = status.get("comment") or "no reason given"
                raise ObsError(f"OBS refused {request_type}: {comment} (code {status.get('code')})",
                               status.get("code"))
            return reply.get("responseData") or {}

    def close(self) -> None:
        ws, self.ws = self.ws, None
        if ws is not None:
            try:
                ws.close(timeout=0.2)
            except Exception:
                pass

    @property
    def connected(self) -> bool:
        return self.ws is not None and bool(getattr(self.ws, "connected", False))

    # frames ------------------------------------------------------------------------------------

    def _send(self, op: int, d: dict[str, Any]) -> None:
        if self.ws is None:
            raise ObsError("not connected to OBS")
        try:
            self.ws.send(json.dumps({"op": op, "d": d}, ensure_ascii=False))
        except Exception as exc:
            self.close()
            raise ObsError(f"lost the connection to OBS: {_why(exc)}") from None

    def _expect(self, op: int, skip: tuple[int, ...] = ()) -> dict[str, Any]:
        import websocket
        while True:
            if self.ws is None:
                raise ObsError("not connected to OBS")
            try:
                opcode, frame = self.ws.recv_data_frame(control_frame=False)
            except websocket.WebSocketTimeoutException:
                self.close()
                raise ObsError(f"OBS did not answer within {self.timeout:g} s") from None
            except Exception as exc:
                self.close()
                raise ObsError(f"lost the connection to OBS: {_why(exc)}") from None
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                code = struct.unpack("!H", frame.data[:2])[0] if len(frame.data) >= 2 else None
                reason = frame.data[2:].decode("utf-8", "replace")
                self.close()
                message = CLOSE_REASONS.get(code or 0, f"OBS closed the connection (code {code}{': ' + reason if reason else ''})")
                raise (ObsAuthError if code == 4009 else ObsError)(message, code)
            try:
                message = json.loads(frame.data)
                got, d = message["op"], message.get("d") or {}
            except (ValueError, TypeError, KeyError):
                self.close()
                raise ObsError("OBS sent something that is not an obs-websocket message") from None
            if got == op:
                return d
            if got not in skip:
                self.close()
                raise ObsError(f"unexpected obs-websocket message (op {got}, waiting for op {op})")


def _why(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, ConnectionRefusedError) or "Connection refused" in text:
        return "connection refused (is OBS running, with Tools → WebSocket Server Settings → Enable?)"
    if "timed out" in text.lower():
        return "timed out"
    return text
