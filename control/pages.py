"""The panel's pages: live (the on-air game), the club game screen, setup (create games, put one
on air), graphics desk, OSC (targets, inbound, osc.toml), question packs.

Each page is a template over `control/base.html` plus one ES module in `static/control/`; the
server hands the page what it cannot fetch itself (CSRF token, default language, graphic names).
"""
from __future__ import annotations

from typing import Any

from flask import current_app, render_template, request, url_for

from overlay.web.auth import is_operator, preview_key
from overlay.web.proxy import public_url
from overlay.graphics import show as showgfx
from overlay.graphics.game import GRAPHICS
from overlay.schema import editor_schemas
from overlay.i18n.web import page_lang

from . import bp
from .csrf import csrf_token

# page name → its template (templates/control/<x>.html) and module (static/control/<x>.js);
# the names are also the endpoints (`control.<name>`)
PAGES = {"panel": "live", "club": "club", "setup": "setup", "graphics": "graphics", "osc": "osc",
         "packs": "packs", "media": "media", "rundown": "rundown"}
# The same press again within this long is the same intent (a bounce, a double click): it goes
# with its first press's rev, so the server answers 409 (static/control/connection.js).
DOUBLE_MS = 400


def available_overlays() -> list[str]:
    """The graphics this server can render now (a template exists), in GRAPHICS order."""
    templates = set(current_app.jinja_env.list_templates())
    return [g for g in GRAPHICS if f"overlays/{g}.html" in templates]


def panel_config(page: str) -> dict[str, Any]:
    extra: dict[str, Any] = {"schemas": editor_schemas()} if page == "rundown" else {}  # the item editor's forms
    if page == "rundown":  # the preview page's address for OBS, with its own key (never the token)
        extra["preview_url"] = f"{public_url()}/overlays/show?preview=1#key={preview_key()}"
        # each graphic's own layer and level: the item form starts a graphic there
        extra["defaults"] = {g: {"layer": showgfx.layer_of(g), "stack": showgfx.stack_of(g)} for g in GRAPHICS}
    if page == "media":  # where the OGraf export's game graphics will connect, and who may
        extra["ograf_export"] = {
            "server": public_url(), "configured": bool(current_app.config.get("PUBLIC_URL")),
            "origins": [str(o).rstrip("/") for o in current_app.config.get("OGRAF_ORIGINS") or []],
            "zip": "/ograf/export.zip"}
    return {**extra,
        "page": page,
        "csrf": csrf_token(),
        "lang": page_lang(),
        "graphics": list(GRAPHICS),
        "overlays": available_overlays(),
        "double_ms": DOUBLE_MS,
        "urls": {name: url_for(f"control.{name}") for name in PAGES},
        "static": url_for("static", filename=""),
    }


def login_page(error: str | None, status: int, next_page: str = "panel") -> Any:
    """The password form (its POST is `login.login`); `next_page` is where a login goes on to."""
    return render_template("control/login.html", error=error, next_page=next_page,
                           lang=page_lang()), status


def _render(page: str) -> Any:
    if not is_operator():
        return login_page(None, 200, page)
    return render_template(f"control/{PAGES[page]}.html", page=page, script=PAGES[page],
                           panel=panel_config(page))


@bp.get("/")
def panel() -> Any:
    return _render("panel")


@bp.get("/setup")
def setup() -> Any:
    return _render("setup")


@bp.get("/graphics")
def graphics() -> Any:
    return _render("graphics")


@bp.get("/club")
def club() -> Any:
    return _render("club")


@bp.get("/rundown")
def rundown() -> Any:
    return _render("rundown")


@bp.get("/osc")
def osc() -> Any:
    return _render("osc")


@bp.get("/packs")
def packs() -> Any:
    return _render("packs")


@bp.get("/media")
def media() -> Any:
    return _render("media")


@bp.after_request
def _no_store(response: Any) -> Any:
    # Panel pages embed the CSRF token and show live data: never serve them from a cache.
    if request.endpoint in {f"control.{p}" for p in PAGES}:
        response.headers["Cache-Control"] = "no-store"
    return response
