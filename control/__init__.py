"""The control panel: login, and the pages operators run a show from.

Modules: `csrf` (token), `login` (login/logout, throttle), `pages` (live, setup, graphics desk).
The panel changes games only through the API and the `/control` Socket.IO namespace.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from .csrf import csrf_ok, csrf_token

bp = Blueprint("control", __name__, url_prefix="/control")


@bp.app_context_processor
def _inject() -> dict[str, Any]:
    return {"csrf_token": csrf_token}


@bp.after_app_request
def _no_framing(response: Response) -> Response:
    """Panel and admin pages are never shown inside another site's frame (clickjacking);
    the overlays stay frameable: the graphics desk previews them."""
    if request.path.startswith("/control"):
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Content-Security-Policy"] = "frame-ancestors 'none'"
    return response


from . import login, pages  # noqa: E402,F401  (registers the routes on bp)

__all__ = ["bp", "csrf_ok", "csrf_token"]
