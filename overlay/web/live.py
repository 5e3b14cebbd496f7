"""The audience page `/live` (phones: the on-air game as it happens) and its QR code.

Served by the single process and by every edge alike: it is an overlay client like the others
(`/overlay` namespace, public state only), laid out for a phone in the sun instead of 1920×1080.
`GET /live/qr.svg` is the page's address as a QR code, made here with segno (pure Python, no
images to ship) so that a `slate` or `bug` graphic can show it: `<img src="/live/qr.svg">`, or
inline from its template with `{{ live_qr(dark="#fff", light=None) }}`.
The address is `LIVE_URL` when configured (the public host the edges answer on). Without it the
request's own `/live` — but the `Host` header is anyone's to write, and a cache in between would
hand a code to another site to the whole hall — so only when a trusted proxy (`PROXIES`) passed
the host on, or the host is this machine itself (`localhost`, or an IP address of ours: someone
on the studio network typing it). Any other host: 421, and `LIVE_URL` is to be set.
"""
from __future__ import annotations

import io
import ipaddress
import os
import socket
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, current_app, render_template, request
from markupsafe import Markup

from ..i18n.web import keys_in, page_lang

bp = Blueprint("live", __name__)


def live_url() -> str | None:
    """The audience page's address for the QR code, or None when nothing vouches for the host."""
    if current_app.config.get("LIVE_URL"):
        return current_app.config["LIVE_URL"]
    proxied = "werkzeug.proxy_fix.orig" in request.environ  # overlay/web/proxy.py: a trusted proxy's host
    if proxied or _our_address(urlsplit("//" + request.host).hostname or ""):
        return request.url_root.rstrip("/") + "/live"
    return None


@lru_cache(maxsize=64)
def _our_address(host: str) -> bool:
    """`localhost`, or an IP address this machine has (it can bind to it)."""
    if host == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name: only LIVE_URL or a trusted proxy can vouch for it
    if ip.is_loopback:
        return True
    try:
        with socket.socket(socket.AF_INET6 if ip.version == 6 else socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((str(ip), 0))
    except OSError:
        return False
    return True


@bp.get("/live")
def page() -> Any:
    # a phone's page stays small: it carries only its own words of the on-air catalog
    words = keys_in((os.path.join(current_app.template_folder, "live.html"), "prefix=air.;attrs=data-t"),
                    (os.path.join(current_app.static_folder, "live", "live.js"),
                     "prefix=air.;calls=t;plural_calls=t.n tx.n=league_"),
                    (os.path.join(current_app.static_folder, "lib", "client.js"), "prefix=air.;calls=t"),
                    (os.path.join(current_app.static_folder, "lib", "dom.js"), "prefix=air.;calls=t"))
    return render_template("live.html", lang=page_lang(), words=words, game_id=request.args.get("game") or None)


@lru_cache(maxsize=16)
def qr_svg(url: str, dark: str, light: str | None) -> bytes:
    import segno

    out = io.BytesIO()
    segno.make(url, error="m", micro=False).save(out, kind="svg", scale=10, border=2, dark=dark, light=light,
                                                 xmldecl=False, svgns=True, title=None)
    return out.getvalue()


@bp.get("/live/qr.svg")
def qr() -> Response:
    """`?dark=` / `?light=` colours (hex, `light=none`: transparent) to sit on a graphic's theme."""
    dark = _colour(request.args.get("dark"), "#000000")
    light_arg = request.args.get("light")
    light = None if light_arg == "none" else _colour(light_arg, "#ffffff")
    url = live_url()
    if url is None:
        return Response(f"{request.host!r} is not a host this server vouches for: set LIVE_URL (the audience "
                        "page's public address) or reach it through a trusted proxy.\n", 421,
                        mimetype="text/plain")
    response = Response(qr_svg(url, dark, light), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


def _colour(value: str | None, default: str) -> str:
    if value and len(value) in (3, 6) and all(c in "0123456789abcdefABCDEF" for c in value):
        return "#" + value
    return default


def qr_markup(dark: str = "#000000", light: str | None = "#ffffff") -> Markup:
    """The QR code inline, for a template: `{{ live_qr(dark="#fff", light=None) }}` (a slate, a bug)."""
    url = live_url()
    return Markup(qr_svg(url, dark, light).decode()) if url else Markup("")


def register(app: Flask) -> None:
    app.register_blueprint(bp)
    app.add_template_global(qr_markup, "live_qr")
