"""Operators: a login session for the panel, a bearer token for scripts and surfaces."""
from __future__ import annotations

import functools
import hmac
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from flask import current_app, g, jsonify, request, session
from itsdangerous import BadSignature, URLSafeSerializer


def _same(given: str, expected: str | None) -> bool:
    return bool(expected) and hmac.compare_digest(given.encode(), expected.encode())


def check_password(given: str) -> bool:
    return _same(given, current_app.config["PASSWORD"])


def check_token(given: Any) -> bool:
    """The configured token; with no token configured, the operator password serves as one."""
    if not isinstance(given, str):
        return False
    cfg = current_app.config
    return _same(given, cfg["TOKEN"]) if cfg["TOKEN"] else _same(given, cfg["PASSWORD"])


def preview_key() -> str:
    """The key of the rundown's preview page (`/overlays/show?preview=1#key=…`): it opens that
    page's view of the focused item and nothing else — no command, no API, no panel. Derived from
    the session key (stable across restarts, changes with it), so the desk can show it in its
    copyable address without ever showing the operators' token or password."""
    return hmac.new(str(current_app.secret_key).encode(), b"chgk-preview-key", "sha256").hexdigest()[:32]


def check_preview_key(given: Any) -> bool:
    return isinstance(given, str) and _same(given, preview_key())


def throttle() -> "Throttle":
    """One throttle per app for every way of proving who one is: the login form, bearer tokens
    and /control sockets. Failures anywhere count against the address everywhere."""
    ext = current_app.extensions
    if "chgk_login_throttle" not in ext:
        config = current_app.config
        ext["chgk_login_throttle"] = Throttle(config["LOGIN_ATTEMPTS"], first_pause_s=float(config["LOGIN_PAUSE_S"]),
                                              max_pause_s=float(config["LOGIN_MAX_PAUSE_S"]))
    return ext["chgk_login_throttle"]


# A configured token this long cannot be guessed online (20 characters of the generated kind hold
# over 100 bits), so its checks are never queued: the right one gets in at once even from an
# address that is being throttled — the hall's NAT where someone else is guessing.
STRONG_TOKEN_CHARS = 20


def token_attempt(given: Any) -> str:
    """"ok", "wrong" or "throttled" for a token presented by this request's address."""
    address = request.remote_addr or "?"
    token = current_app.config["TOKEN"]
    if token and len(token) >= STRONG_TOKEN_CHARS:
        if check_token(given):
            return "ok"
        throttle().fail(address)  # still counts: the address's password guesses slow down
        return "throttled" if throttle().recent(address) > throttle().limit else "wrong"
    return throttle().attempt(address, lambda: check_token(given))


# A browser that has logged in before carries a signed device cookie (OWASP's "device cookies"):
# its logins are throttled on their own, not with its address, so guesses from elsewhere behind
# the same NAT never keep a known operator's browser out.
DEVICE_COOKIE = "chgk_device"
DEVICE_DAYS = 365


def _device_signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.secret_key, salt="chgk-device")


def trusted_device() -> str | None:
    """The device id of this browser's device cookie, if it carries a valid one."""
    raw = request.cookies.get(DEVICE_COOKIE)
    if not raw:
        return None
    try:
        device = _device_signer().loads(raw)
    except BadSignature:  # a forged cookie, or one signed by another secret, is not trusted
        return None
    return device if isinstance(device, str) else None


def remember_device(response: Any) -> Any:
    """Marks this browser as one that has logged in (kept for a year, HttpOnly, SameSite)."""
    device = trusted_device() or secrets.token_urlsafe(16)
    response.set_cookie(DEVICE_COOKIE, _device_signer().dumps(device), max_age=DEVICE_DAYS * 86400,
                        httponly=True, samesite="Lax", secure=current_app.session_interface.get_cookie_secure(current_app),
                        path="/control/")
    return response


def login_throttle_key() -> str:
    """What a login attempt is throttled under: its trusted device, else its address."""
    device = trusted_device()
    return f"device:{device}" if device else request.remote_addr or "?"


def _bearer_status() -> str | None:
    """None without a bearer token; else what `token_attempt` said (asked once per request)."""
    if "chgk_bearer" not in g:
        header = request.headers.get("Authorization", "")
        g.chgk_bearer = token_attempt(header[7:].strip()) if header.startswith("Bearer ") else None
    return g.chgk_bearer


def _bearer() -> bool:
    return _bearer_status() == "ok"


def logged_in() -> bool:
    """The panel's login session, unless it has been logged out (from any tab)."""
    revoked = current_app.extensions["chgk"].revoked_logins
    return bool(session.get("operator")) and session.get("login") not in revoked


def is_operator() -> bool:
    return logged_in() or _bearer()


def begin_login() -> None:
    session.clear()  # a fresh session: nothing from before the login survives it
    session["operator"] = True
    session["login"] = secrets.token_urlsafe(16)
    session.permanent = True


# Who must hear of a logout (the /control transport closes that login's sockets). Auth owns the
# login state; the transports subscribe, so auth imports none of them.
_logout_listeners: list[Callable[[str], None]] = []


def on_logout(listener: Callable[[str], None]) -> Callable[[str], None]:
    _logout_listeners.append(listener)
    return listener


def end_login() -> None:
    """Log out: the cookie is refused from now on and this login's open sockets are closed."""
    login = session.get("login")
    session.clear()
    if login:
        svc = current_app.extensions["chgk"]
        svc.revoked_logins.add(login)
        svc.store.set_setting("revoked_logins", sorted(svc.revoked_logins)[-1000:], at=svc.sessions.clock())
        for listener in _logout_listeners:
            listener(login)


def _csrf_ok() -> bool:
    sent = request.headers.get("X-CSRF-Token") or ""
    return bool(session.get("csrf")) and hmac.compare_digest(sent.encode(), session["csrf"].encode())


def operator_required(view: Callable) -> Callable:
    """For JSON endpoints: 401 unless the caller is an operator. A change made with the panel's
    login cookie (not a bearer token) must also carry the page's CSRF token."""
    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if _bearer_status() == "throttled":
            return jsonify(error={"code": "throttled", "message": "Too many wrong tokens or passwords from "
                                                                  "this address: wait a minute."}), 429
        if not is_operator():
            return jsonify(error={"code": "unauthorized",
                                  "message": "Log in at /control/ or send 'Authorization: Bearer <token>'."}), 401
        if request.method not in ("GET", "HEAD", "OPTIONS") and not _bearer() and not _csrf_ok():
            return jsonify(error={"code": "csrf", "message": "The page's security token is missing or out "
                                                             "of date: reload the panel and try again."}), 403
        return view(*args, **kwargs)
    return wrapped


class Throttle:
    """Slows guesses, never refuses a valid credential: a hall's shared NAT address, where one
    person mistyped, must not lock out the operator's token or the next login.

    Every proof is checked at once, and the right one always gets in at once (issue 37: a new
    browser with the right password used to be refused unchecked while someone else kept guessing
    from the same address — a hall's NAT). `limit` failures per address per window are answered
    at once; beyond them, each wrong one is answered (429) only after a pause that doubles with each
    further failure (1 s, 2 s, 4 s … at most `max_pause_s`), queued one after another per address,
    so a guesser's answers come a few a minute on one connection and each further guess holds a
    connection for up to `max_pause_s`. What bounds a guesser is then the connections it can
    hold (deploy/'s nginx: 128 per address) — keep the password long, or use a strong token."""

    def __init__(self, limit: int, window_s: float = 60.0, first_pause_s: float = 1.0,
                 max_pause_s: float = 30.0) -> None:
        self.limit, self.window = limit, window_s
        self.first_pause, self.max_pause = first_pause_s, max_pause_s
        self.failures: dict[str, deque[float]] = {}
        self.turn: dict[str, float] = {}  # when the address's next check may run (monotonic)
        self.lock = threading.Lock()  # a turn is taken by one attempt (threading mode has real threads)

    def recent(self, address: str) -> int:
        """Failures from the address within the window (forgetting addresses that have none)."""
        recent = self.failures.get(address)
        while recent and recent[0] < time.monotonic() - self.window:
            recent.popleft()
        if not recent:
            self.failures.pop(address, None)
            self.turn.pop(address, None)
            return 0
        return len(recent)

    def fail(self, address: str) -> None:
        self.failures.setdefault(address, deque()).append(time.monotonic())

    def _pause(self, address: str) -> float | None:
        """Seconds this attempt waits before it is checked (0: at once); None: refused unchecked."""
        over = self.recent(address) - self.limit
        if over < 0:
            return 0.0
        now = time.monotonic()
        at = max(now, self.turn.get(address, 0.0)) + min(self.max_pause, self.first_pause * 2 ** min(over, 30))
        if at - now > self.max_pause:
            return None
        self.turn[address] = at  # the next attempt queues behind this one
        return at - now

    def attempt(self, address: str, check: Callable[[], bool]) -> str:
        """"ok" (at once), "wrong", or "throttled" (a wrong guess beyond the limit, answered after its pause)."""
        if check():
            return "ok"
        with self.lock:
            pause = self._pause(address)
        if pause is None:  # a queue of guesses ahead: held as long as the longest pause, not counted again
            time.sleep(self.max_pause)
            return "throttled"
        self.fail(address)
        if pause:
            time.sleep(pause)  # green under eventlet and gevent: only this request waits
        return "throttled" if pause else "wrong"
