"""Our graphics as an OGraf package: `GET /ograf/export.zip` (all of them), `GET /ograf/export/
<graphicId>.zip` (one), and the same files served unzipped under `/ograf/package/` (what the Server
API's manifests point at).

The package keeps the layout of our `static/` tree, so the overlay modules' relative imports
work unchanged inside it:

    chgk-<graphic>.ograf.json       the manifests (overlay/ograf/manifests.py)
    ograf/chgk/graphic.mjs          the Web Component (static/ograf/chgk/graphic.mjs)
    ograf/chgk/<graphic>.mjs        each main module: `export default ografGraphic("<graphic>")`
    ograf/chgk/<graphic>.json       its markup, stylesheets and overlay module, as our page renders them
    ograf/chgk/i18n/<lang>.json     the on-air words (ru, uk, en)
    ograf/chgk/thumbnails/<graphic>.png
    ograf/chgk/server.json          this server's address, for the game graphics (baked at download)
    lib/ overlays/ themes/ fonts/ vendor/socket.io/   our shared client and graphics, as served

`export.zip` holds that layout once per graphic, in a folder `chgk-<graphic>/` each (a renderer
such as SuperFly's ograf-server takes one manifest a folder); `export/<id>.zip` is one graphic's.
"""
from __future__ import annotations

import html
import io
import json
import re
import zipfile
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, current_app, request

from ..graphics.game import GRAPHICS
from ..web.proxy import public_url
from . import manifests

bp = Blueprint("ograf_export", __name__)
LANGS = ("ru", "uk", "en")
STATIC_PARTS = ("lib", "overlays", "themes", "fonts", "vendor/socket.io", "ograf/chgk")
SKIP = re.compile(r"(README\.md|\.py|/thumbnails/.*)$")
TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".json": "application/json", ".css": "text/css",
         ".png": "image/png", ".svg": "image/svg+xml", ".woff2": "font/woff2", ".txt": "text/plain"}
STATIC = r"/static/(?:v/\w+/)?"  # a page's static address, versioned (web/assets.py) or not
ZIP_TIME = (2026, 1, 1, 0, 0, 0)  # a fixed date: the same graphics give the same zip


def _page(app: Flask, graphic: str, lang: str) -> str:
    from ..web import pages
    with app.test_request_context(f"/overlays/{graphic}?lang={lang}"):
        page = pages.overlay(graphic)
        return page.get_data(as_text=True) if hasattr(page, "get_data") else str(page)


def _stage(page: str, graphic: str) -> dict[str, Any]:
    """A graphic's markup, stylesheets and module, cut from its rendered page."""
    start = page.index('<div id="stage"')
    start = page.index(">", start) + 1
    end = page.index('<script type="application/json" id="i18n-air">')
    inner = page[start:end].rstrip()
    assert inner.endswith("</div>"), graphic
    links = re.findall(rf'<link rel="stylesheet" href="{STATIC}([^"]+)">', page)
    module = re.search(rf'import create from "{STATIC}overlays/([\w-]+)\.js"', page)
    return {"graphic": graphic, "kind": manifests.kind(graphic), "steps": list(manifests.STEPS.get(graphic, ())),
            "module": module.group(1) if module else graphic,
            "styles": [s for s in links if not s.startswith(("fonts/", "themes/"))],
            "html": inner[: -len("</div>")].strip()}


def _catalog(page: str) -> Any:
    m = re.search(r'<script type="application/json" id="i18n-air">(.*?)</script>', page, re.S)
    return json.loads(html.unescape(m.group(1))) if m else {}


def _thumbnail(static: Path, graphic: str) -> bytes:
    """The graphic's picture (static/ograf/chgk/thumbnails/<graphic>.png, taken from the export
    played in Chromium by tools/ograf_thumbnails.py), else a plain card with its name."""
    shot = static / "ograf/chgk/thumbnails" / f"{graphic}.png"
    if shot.is_file():
        return shot.read_bytes()
    from PIL import Image, ImageDraw
    img = Image.new("RGB", (384, 216), (16, 24, 48))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 180, 384, 216), fill=(200, 160, 60))
    draw.text((16, 16), f"chgk-{graphic}", fill=(255, 255, 255))
    out = io.BytesIO()
    img.save(out, "PNG", optimize=True)
    return out.getvalue()


README = """# chgk-overlay graphics as OGraf packages

The on-air graphics of chgk-overlay (the broadcast graphics server for «Что? Где? Когда?») as
EBU OGraf v1 Graphics, for an OGraf renderer (SPX, CasparCG, SuperFly's ograf-server).

- `chgk-<graphic>.ograf.json` is each graphic's manifest (`chgk-scoreboard`, `chgk-lower-third`,
  ...); in the full export each graphic sits in a folder of its own, `chgk-<graphic>/`, with the
  files it uses. Load the folder (or this zip) in the renderer as it takes OGraf graphics.
- The game graphics (scoreboard, timer, table, question card, ...) follow a game on the server
  they were downloaded from: its address is in `ograf/chgk/server.json` and in the default of
  each manifest's `server` field. That server must let the renderer's origin in (`OGRAF_ORIGINS`
  in its `config.toml`); its media page («Медиатека» → «Экспорт графики OGraf») says the address
  and the origins. Without a connection a game graphic draws «Нет связи с сервером».
- The cue graphics (lower third, logo, ticker, slate, credits) draw the data the controller gives
  them (each manifest's `schema`).
- The words on air are in `ograf/chgk/i18n/<lang>.json` (ru, uk, en; the `lang` field chooses).

Made by chgk-overlay. The manifests name it as the author without an address: the project has
no public web page to point at; ask whoever runs the server the graphics came from.
"""


def package(app: Flask) -> dict[str, bytes]:
    """{path: bytes} of the whole package (built once per app)."""
    cached = app.extensions.get("chgk_ograf_package")
    if cached is not None:
        return cached
    static = Path(app.static_folder or "static")
    files: dict[str, bytes] = {}
    for part in STATIC_PARTS:
        for path in sorted((static / part).rglob("*")):
            rel = path.relative_to(static).as_posix()
            if path.is_file() and not SKIP.search(rel):
                files[rel] = path.read_bytes()
    for lang in LANGS:
        files[f"ograf/chgk/i18n/{lang}.json"] = json.dumps(_catalog(_page(app, "scoreboard", lang)),
                                                          ensure_ascii=False).encode()
    for graphic in GRAPHICS:
        doc = manifests.manifest(graphic)
        files[f"{doc['id']}.ograf.json"] = json.dumps(doc, ensure_ascii=False, indent=2).encode()
        files[f"ograf/chgk/{graphic}.mjs"] = (
            f'// OGraf Graphic «{doc["name"]}» ({doc["id"]}): our overlay "{graphic}" as a Web Component.\n'
            'import { ografGraphic } from "./graphic.mjs";\n\n'
            f'export default ografGraphic({json.dumps(graphic)});\n').encode()
        files[f"ograf/chgk/{graphic}.json"] = json.dumps(_stage(_page(app, graphic, "ru"), graphic),
                                                         ensure_ascii=False).encode()
        files[f"ograf/chgk/thumbnails/{graphic}.png"] = _thumbnail(static, graphic)
    files["README.md"] = README.encode()
    app.extensions["chgk_ograf_package"] = files
    return files


def baked(files: dict[str, bytes], server: str) -> dict[str, bytes]:
    """The package for a renderer elsewhere: the game and league graphics follow `server` with no
    load data at all (`ograf/chgk/server.json`, and the default of their `server` field)."""
    out = dict(files)
    out["ograf/chgk/server.json"] = json.dumps({"server": server}).encode()
    for graphic in GRAPHICS:
        if manifests.kind(graphic) != "cue":
            doc = manifests.manifest(graphic, server)
            out[f"{doc['id']}.ograf.json"] = json.dumps(doc, ensure_ascii=False, indent=2).encode()
    return out


def _only(files: dict[str, bytes], ograf_id: str) -> dict[str, bytes]:
    """One graphic's package: its manifest and the shared files, without the other graphics'."""
    graphic = manifests.graphic_of(ograf_id)
    others = {g for g in GRAPHICS if g != graphic}

    def theirs(path: str) -> bool:
        if path.endswith(".ograf.json"):
            return path != f"{ograf_id}.ograf.json"
        m = re.fullmatch(r"ograf/chgk/(?:thumbnails/)?([\w-]+)\.(mjs|json|png)", path)
        return bool(m and m.group(1) in others)
    return {p: b for p, b in files.items() if not theirs(p)}


def zipped(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(files):
            info = zipfile.ZipInfo(path, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, files[path])
    return out.getvalue()


def _download(data: bytes, name: str) -> Response:
    resp = Response(data, mimetype="application/zip")
    resp.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    resp.headers["Cache-Control"] = "no-cache"
    return resp


def foldered(files: dict[str, bytes]) -> dict[str, bytes]:
    """Every graphic in a folder of its own, `chgk-<graphic>/`, holding its one manifest and the
    files it uses: renderers (SuperFly's ograf-server) take one manifest a folder, named by its id."""
    out: dict[str, bytes] = {}
    for graphic in GRAPHICS:
        gid = manifests.graphic_id(graphic)
        out.update({f"{gid}/{path}": data for path, data in _only(files, gid).items()})
    return out


@bp.get("/ograf/export.zip")
def export_all() -> Response:
    server = public_url()
    cache = current_app.extensions.setdefault("chgk_ograf_zips", {})
    data = cache.get(server)
    if data is None:  # zipped once per address: the package does not change while it runs
        while len(cache) >= 8:  # (the address comes from the request: a few are kept, not any number)
            cache.pop(next(iter(cache)))
        data = cache[server] = zipped(foldered(baked(package(current_app), server)))
    return _download(data, "chgk-overlay.ograf.zip")


@bp.get("/ograf/export/<ograf_id>.zip")
def export_one(ograf_id: str) -> Response:
    if manifests.graphic_of(ograf_id) is None:
        abort(404)
    return _download(zipped(_only(baked(package(current_app), public_url()), ograf_id)), f"{ograf_id}.ograf.zip")


@bp.get("/ograf/package/<path:path>")
def package_file(path: str) -> Response:
    """The package unzipped, for renderers that load our graphics from this server."""
    files = package(current_app)
    if path == "ograf/chgk/server.json" or path.endswith(".ograf.json"):
        files = baked(files, public_url())
    if path not in files:
        abort(404)
    resp = Response(files[path], mimetype=TYPES.get(Path(path).suffix, "application/octet-stream"))
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Cache-Control"] = "no-cache"
    _allow_origin(resp)
    return resp


def _allow_origin(resp: Response) -> None:
    origin = request.headers.get("Origin")
    if origin and origin.rstrip("/") in [str(o).rstrip("/") for o in current_app.config.get("OGRAF_ORIGINS") or []]:
        resp.headers["Access-Control-Allow-Origin"] = origin
    resp.headers.add("Vary", "Origin")


def register(app: Flask) -> None:
    app.register_blueprint(bp)

    @app.after_request
    def _public_league_cors(resp: Response) -> Response:
        """Our league graphics in an operator's OGraf renderer read the public league views."""
        if request.path.startswith("/api/public/") and request.method == "GET":
            _allow_origin(resp)
        return resp
