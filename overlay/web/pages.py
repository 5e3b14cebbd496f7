"""Public pages: the index and the on-air graphics."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, make_response, redirect, render_template, request
from jinja2 import TemplateNotFound

from ..graphics.game import GRAPHICS
from ..graphics.themes import house_theme
from ..i18n.web import page_lang

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> Any:
    if current_app.config.get("EDGE"):
        return redirect("/live")  # an edge has no panel to link to
    return render_template("index.html", graphics=(*GRAPHICS, SHOW), lang=page_lang())


SHOW = "show"  # the rundown's output: every graphic with a part, each shown while its item is on a layer


def show_parts() -> list[str]:
    """The graphics `/overlays/show` composes: those with a part template (not `full`)."""
    templates = set(current_app.jinja_env.list_templates())
    return [g for g in GRAPHICS if f"overlays/parts/{g}.html" in templates]


@bp.get("/overlays/<name>")
def overlay(name: str) -> Any:
    """One on-air graphic (1920×1080, transparent); `?game=` pins a game, `?lang=`, `?theme=`;
    `/overlays/show?layers=a,b` the rundown's layers a and b, `?preview=1` its focused item."""
    if name not in GRAPHICS and name != SHOW:
        abort(404)
    game = request.args.get("game") or None
    try:
        resp = make_response(render_template(
            f"overlays/{name}.html", graphic=name, game_id=game,
            lang=page_lang(),
            theme="".join(c for c in (request.args.get("theme") or house_theme()) if c.isalnum() or c in "-_")[:40],
            sound=request.args.get("sound") == "1", query=request.args.to_dict(),
            parts=show_parts() if name == SHOW else []))
    except TemplateNotFound:
        abort(404)
    # An uploaded graphic's frame may hold only our own pages: a graphic that navigates its frame
    # to another site (location, a link, <meta refresh>) is stopped by the browser before the
    # request leaves (issue 37). The parent's frame-src governs every navigation of its frames;
    # nothing in the frame's own policy can (Chromium has no navigate-to). static/ograf/host.js
    # then takes the graphic off this output.
    resp.headers["Content-Security-Policy"] = "frame-src 'self'"
    return resp
