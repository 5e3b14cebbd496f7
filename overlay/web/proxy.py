"""Behind a TLS reverse proxy (nginx, Caddy; deploy/): the client's real address and scheme,
secure cookies and HSTS.

`X-Forwarded-*` is honoured only on connections from a configured proxy (`PROXIES`, addresses or
networks): anyone else could write those headers and pass for another address — the login
throttle would then count a guesser's failures against nobody. The middleware wraps the whole
WSGI app, Socket.IO's included, so handlers of `/control` see the same `remote_addr`.
"""
from __future__ import annotations

import ipaddress
import re
from typing import Any

from flask import Flask, Response, current_app, request
from flask.sessions import SecureCookieSessionInterface
from werkzeug.middleware.proxy_fix import ProxyFix


class TrustedProxyFix:
    """Werkzeug's ProxyFix, applied only to requests whose peer is one of `proxies`."""

    def __init__(self, app: Any, proxies: list[str], hops: int = 1) -> None:
        self.app = app
        self.fixed = ProxyFix(app, x_for=hops, x_proto=hops, x_host=hops, x_port=hops)
        self.networks = [ipaddress.ip_network(p, strict=False) for p in proxies]

    def trusted(self, address: str | None) -> bool:
        try:
            ip = ipaddress.ip_address(address or "")
        except ValueError:
            return False
        return any(ip in net for net in self.networks)

    def __call__(self, environ: dict, start_response: Any) -> Any:
        app = self.fixed if self.trusted(environ.get("REMOTE_ADDR")) else self.app
        return app(environ, start_response)


class SessionInterface(SecureCookieSessionInterface):
    """The session cookie is `Secure` whenever the request came over HTTPS (directly or through
    a trusted proxy), whatever `SESSION_COOKIE_SECURE` says: a plain-HTTP LAN keeps working."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or _is_secure()


def _is_secure() -> bool:
    try:
        return request.is_secure
    except RuntimeError:  # outside a request
        return False


def install(app: Flask) -> None:
    """Call after Socket.IO has wrapped `app.wsgi_app`, so the fix covers its requests too."""
    proxies = app.config["PROXIES"]
    if isinstance(proxies, str):
        proxies = [p.strip() for p in proxies.split(",") if p.strip()]
    try:
        if proxies:
            app.wsgi_app = TrustedProxyFix(app.wsgi_app, proxies, int(app.config["PROXY_HOPS"]))
    except ValueError as exc:
        raise SystemExit(f"PROXIES: {exc} (give addresses or networks, e.g. 127.0.0.1, 10.0.0.0/8)") from None
    app.session_interface = SessionInterface()
    hsts = int(app.config["HSTS_SECONDS"] or 0)

    @app.after_request
    def _hsts(response: Response) -> Response:
        if hsts and request.is_secure:
            response.headers.setdefault("Strict-Transport-Security", f"max-age={hsts}")
        return response


def public_url() -> str:
    """This server's address as a client elsewhere reaches it (an OGraf renderer playing our
    export): `PUBLIC_URL`, else the address this request came to — as PROXIES let us believe it."""
    configured = str(current_app.config.get("PUBLIC_URL") or "")
    return (configured if re.match(r"^https?://[^/\s]+", configured) else request.host_url).rstrip("/")
