"""The control panel: login, and the pages operators run a show from."""
from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for

from overlay.auth import Throttle, check_password, is_operator

bp = Blueprint("control", __name__, url_prefix="/control")


def _throttle() -> Throttle:
    ext = current_app.extensions
    if "chgk_login_throttle" not in ext:
        ext["chgk_login_throttle"] = Throttle(current_app.config["LOGIN_ATTEMPTS"])
    return ext["chgk_login_throttle"]


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def csrf_ok() -> bool:
    sent = request.form.get("csrf") or request.headers.get("X-CSRF-Token") or ""
    return bool(session.get("csrf")) and secrets.compare_digest(sent, session["csrf"])


@bp.app_context_processor
def _inject() -> dict[str, Any]:
    return {"csrf_token": csrf_token}


@bp.get("/")
def panel() -> Any:
    if not is_operator():
        return render_template("control/login.html", error=None), 200
    return render_template("control/panel.html")


@bp.post("/login")
def login() -> Any:
    address = request.remote_addr or "?"
    throttle = _throttle()
    if throttle.blocked(address):
        return render_template("control/login.html", error="throttled"), 429
    if not csrf_ok():
        return render_template("control/login.html", error="csrf"), 400
    if not check_password(request.form.get("password", "")):
        throttle.fail(address)
        return render_template("control/login.html", error="wrong"), 401
    session.clear()
    session["operator"] = True
    session.permanent = True
    return redirect(url_for("control.panel"))


@bp.post("/logout")
def logout() -> Any:
    if csrf_ok():
        session.clear()
    return redirect(url_for("control.panel"))
