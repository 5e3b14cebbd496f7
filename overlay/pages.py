"""Public pages: the index and the on-air graphics."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, redirect, render_template, request
from jinja2 import TemplateNotFound

from .graphics import GRAPHICS

bp = Blueprint("pages", __name__)
LANGS = ("ru", "uk", "en")


@bp.get("/")
def index() -> Any:
    if current_app.config.get("EDGE"):
        return redirect("/live")  # an edge has no panel to link to
    return render_template("index.html", graphics=GRAPHICS)


@bp.get("/overlays/<name>")
def overlay(name: str) -> Any:
    """One on-air graphic (1920×1080, transparent); `?game=` pins a game, `?lang=`, `?theme=`."""
    if name not in GRAPHICS:
        abort(404)
    lang = request.args.get("lang", current_app.config["LANGUAGE"])
    game = request.args.get("game") or None
    try:
        return render_template(
            f"overlays/{name}.html", graphic=name, game_id=game,
            lang=lang if lang in LANGS else "ru",
            theme="".join(c for c in request.args.get("theme", "classic") if c.isalnum() or c in "-_")[:40],
            sound=request.args.get("sound") == "1", query=request.args.to_dict())
    except TemplateNotFound:
        abort(404)
