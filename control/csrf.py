"""CSRF token for the panel: one random token per login session, checked on every form POST.

The panel's fetch calls send it as `X-CSRF-Token` too; the API also accepts the session cookie
alone (SameSite=Lax keeps other sites' POSTs from carrying it)."""
from __future__ import annotations

import secrets

from flask import request, session


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def csrf_ok() -> bool:
    sent = request.form.get("csrf") or request.headers.get("X-CSRF-Token") or ""
    return bool(session.get("csrf")) and secrets.compare_digest(sent, session["csrf"])
