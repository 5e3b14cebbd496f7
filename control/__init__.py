"""The control panel: login, and the pages operators run a show from.

Modules: `csrf` (token), `login` (login/logout, throttle), `pages` (live, setup, graphics desk).
The panel changes games only through the API and the `/control` Socket.IO namespace.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint

from .csrf import csrf_ok, csrf_token

bp = Blueprint("control", __name__, url_prefix="/control")


@bp.app_context_processor
def _inject() -> dict[str, Any]:
    return {"csrf_token": csrf_token}


from . import login, pages  # noqa: E402,F401  (registers the routes on bp)

__all__ = ["bp", "csrf_ok", "csrf_token"]
