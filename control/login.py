"""Login and logout: a password form with CSRF and a per-address throttle."""
from __future__ import annotations

from typing import Any

from flask import redirect, request, url_for

from overlay.web.auth import Throttle, begin_login, check_password, end_login, login_throttle_key, remember_device, throttle

from . import bp
from .csrf import csrf_ok
from .pages import PAGES, login_page


def _throttle() -> Throttle:
    return throttle()


def _next_page() -> str:
    """Only our own pages: a panel page's name, or a path under /control/admin/ — a login never
    redirects somewhere a link chose."""
    wanted = request.form.get("next", "panel")
    if wanted in PAGES:
        return wanted
    if wanted.startswith("/control/admin/") and "//" not in wanted and "\\" not in wanted and ".." not in wanted:
        return wanted
    return "panel"


@bp.post("/login")
def login() -> Any:
    address = login_throttle_key()
    throttle = _throttle()
    next_page = _next_page()
    if not csrf_ok():
        return login_page("csrf", 400, next_page)
    # after too many failures from the address this waits a little first (auth.Throttle)
    verdict = throttle.attempt(address, lambda: check_password(request.form.get("password", "")))
    if verdict != "ok":
        return login_page(verdict, 429 if verdict == "throttled" else 401, next_page)
    begin_login()
    return remember_device(redirect(next_page if next_page.startswith("/") else url_for(f"control.{next_page}")))


@bp.post("/logout")
def logout() -> Any:
    if csrf_ok():
        end_login()
    return redirect(url_for("control.panel"))
