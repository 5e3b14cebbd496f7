"""Themes: the shipped ones (`static/themes/<name>.css`) and custom ones from the data folder
(`<data>/themes/<name>.css`, with an optional `<name>.png` or `<name>.svg` logo), served at
`/themes/<name>.css` without touching the package.

A theme is a CSS file setting the custom properties the overlays use (copy
`static/themes/classic.css` and change the values). Names are `[a-z0-9_-]{1,40}`; nothing else
is ever looked up, so no path can leave the themes folders. A custom theme with a shipped
theme's name takes its place. Files are read on every request: an edited theme shows on the
overlay's next reload (OBS: "Refresh cache of current page").
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, abort, current_app, jsonify, send_file, url_for

NAME = re.compile(r"[a-z0-9_-]{1,40}")
_FILE = re.compile(r"^([a-z0-9_-]{1,40})\.(css|png|svg)$")
LOGO_TYPES = ("svg", "png")
MIMETYPES = {"css": "text/css; charset=utf-8", "png": "image/png", "svg": "image/svg+xml"}
DEFAULT = "classic"

bp = Blueprint("themes", __name__)


def register(app: Flask) -> None:
    app.register_blueprint(bp)
    app.add_template_global(theme_exists)
    app.add_template_global(house_theme)
    app.add_template_global(theme_url)
    app.add_template_global(theme_logo_url)


def shipped_dir() -> Path:
    return Path(current_app.static_folder or "") / "themes"


def custom_dir() -> Path:
    return Path(current_app.config["DATA"]) / "themes"


def _valid(name: Any) -> bool:
    return isinstance(name, str) and NAME.fullmatch(name) is not None


def _file(folder: Path, name: str, ext: str) -> Path | None:
    path = folder / f"{name}.{ext}"
    return path if path.is_file() else None


def custom_theme(name: str) -> Path | None:
    return _file(custom_dir(), name, "css") if _valid(name) else None


def shipped_theme(name: str) -> Path | None:
    return _file(shipped_dir(), name, "css") if _valid(name) else None


def theme_exists(name: Any) -> bool:
    return _valid(name) and (custom_theme(name) or shipped_theme(name)) is not None


def house_theme() -> str:
    """The house theme (config `THEME`): overlays opened without `?theme=` use it, and the panel
    and `/live` take the sides' colours from it, so each side has one colour everywhere (a
    custom theme's too). An unknown name: the default theme."""
    name = current_app.config.get("THEME") or DEFAULT
    return name if theme_exists(name) else DEFAULT


def theme_url(name: Any) -> str:
    """The stylesheet an overlay links for `?theme=name`: the data folder's, the shipped one,
    or the house theme when there is no such theme."""
    if not theme_exists(name):
        name = house_theme()
    if custom_theme(name):
        return url_for("themes.theme_file", filename=f"{name}.css")
    if not shipped_theme(name):
        name = DEFAULT
    return url_for("static", filename=f"themes/{name}.css")


def theme_logo_url(name: Any) -> str | None:
    """The custom theme's logo (`<name>.svg` or `.png` beside its CSS), or None."""
    if not _valid(name):
        return None
    for ext in LOGO_TYPES:
        if _file(custom_dir(), name, ext):
            return url_for("themes.theme_file", filename=f"{name}.{ext}")
    return None


def themes() -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for folder, source in ((shipped_dir(), "shipped"), (custom_dir(), "custom")):
        if folder.is_dir():
            for path in sorted(folder.glob("*.css")):
                if _valid(path.stem):
                    found[path.stem] = {"name": path.stem, "source": source, "css": theme_url(path.stem),
                                        "logo": theme_logo_url(path.stem)}
    return sorted(found.values(), key=lambda t: (t["source"] != "shipped", t["name"]))


@bp.get("/themes/<filename>")
def theme_file(filename: str) -> Any:
    """`/themes/<name>.css|png|svg`: the data folder's file, else (CSS only) the shipped theme."""
    m = _FILE.match(filename)
    if not m:
        abort(404)
    name, ext = m.groups()
    path = _file(custom_dir(), name, ext) or (shipped_theme(name) if ext == "css" else None)
    if path is None:
        abort(404)
    response = send_file(path, mimetype=MIMETYPES[ext], max_age=0, conditional=True)
    response.headers["Cache-Control"] = "no-cache"  # revalidate: an edited theme shows on reload
    response.headers["X-Content-Type-Options"] = "nosniff"
    if ext == "svg":  # an SVG opened on its own must not run script in the server's origin
        response.headers["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    return response


@bp.get("/api/themes")
def list_themes() -> Any:
    """Public, like the overlays that use them: every theme's name, source, CSS and logo URL."""
    return jsonify(themes=themes())
