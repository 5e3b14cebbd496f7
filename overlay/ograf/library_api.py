"""HTTP for the graphics library (API.md, OGraf): `/api/ograf` for operators; `/ograf/pkg/…`
(a package's files) and `/ograf/frame/<id>` (the document one graphic runs in) for the overlays.

Third-party code never runs on our origin: the frame document is loaded by `/overlays/show` in
an `<iframe sandbox="allow-scripts">` (an opaque origin: no cookies, no storage, no DOM of the
parent, `/api` answers it without CORS), and its CSP lets it load only its own package's files
and our frame runtime — no fetch, socket, image or font from anywhere else. Package files carry
`sandbox` in their own CSP too, so one opened directly is still an opaque origin."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, abort, jsonify, make_response, render_template_string, request, send_file, url_for

from ..web.auth import operator_required
from ..web.services import services
from ..web.uploads import uploaded_file
from .library import MAX_UPLOAD, OgrafInUse, OgrafLibrary, OgrafRefused

bp = Blueprint("ograf_library", __name__, url_prefix="/api/ograf")
files = Blueprint("ograf_files", __name__)

# What a package's files are served as (by extension; unknown: bytes). HTML is never served as
# HTML: the frame document is ours.
TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json", ".css": "text/css",
         ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
         ".webp": "image/webp", ".svg": "image/svg+xml", ".woff": "font/woff", ".woff2": "font/woff2",
         ".ttf": "font/ttf", ".otf": "font/otf", ".mp4": "video/mp4", ".webm": "video/webm",
         ".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".txt": "text/plain",
         ".md": "text/plain", ".html": "text/plain", ".htm": "text/plain"}
FILE_CSP = "sandbox allow-scripts; default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def library() -> OgrafLibrary:
    return services().ograf


@bp.errorhandler(OgrafRefused)
def _refused(exc: OgrafRefused) -> Any:
    return jsonify(error={**exc.as_json(), "file": exc.file}), exc.status


@bp.get("")
@operator_required
def list_graphics() -> Any:
    return jsonify(graphics=library().list())


@bp.post("")
@operator_required
def upload() -> Any:
    raw, name = uploaded_file(MAX_UPLOAD, lambda length: OgrafRefused(
        f"The package is {length / 1048576:.1f} MB; the library takes packages up to {MAX_UPLOAD // 1048576} MB.",
        status=413), "the package (a zip)")
    return jsonify(graphics=library().add(raw, name)), 201


@bp.get("/<gid>")
@operator_required
def get_graphic(gid: str) -> Any:
    lib = library()
    rec = lib.get(gid)
    return jsonify({**lib.listing(rec), "manifest": rec["manifest"], "used_by": lib.used_by(gid)})


@bp.delete("/<gid>")
@operator_required
def delete(gid: str) -> Any:
    try:
        library().delete(gid)
    except OgrafInUse as exc:
        return jsonify(error={"code": exc.code, "message": exc.message, "used_by": exc.used_by}), 409
    return jsonify(deleted=gid)


@files.get("/ograf/pkg/<pkg>/<path:path>")
def package_file(pkg: str, path: str) -> Any:
    target = library().file(pkg, path)
    if target is None:
        abort(404)
    ext = ("." + target.name.rsplit(".", 1)[1].lower()) if "." in target.name else ""
    mime = TYPES.get(ext) or "application/octet-stream"
    resp = send_file(target, mimetype=mime, max_age=31_536_000, conditional=True, etag=True)
    resp.headers["Cache-Control"] = "public, max-age=31536000, immutable"  # the folder's name is its content
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Content-Security-Policy"] = FILE_CSP
    # the sandboxed frame is an opaque origin: its module imports are cross-origin, without credentials
    resp.headers["Access-Control-Allow-Origin"] = "*"
    resp.headers["Cross-Origin-Resource-Policy"] = "cross-origin"
    return resp


FRAME = """<!doctype html>
<html><head><meta charset="utf-8"><title>{{ name }}</title>
<style>html,body{margin:0;width:100%;height:100%;overflow:hidden;background:transparent}
body>*{position:absolute;inset:0;display:block;width:100%;height:100%}</style>
</head><body data-main="{{ main }}" data-graphic="{{ gid }}">
<script src="{{ runtime }}"></script>
</body></html>"""


def frame_csp(base: str, runtime: str) -> str:
    """The frame may load its own package's files and our runtime, nothing else: no fetch to
    `/api`, no socket, no other origin; no forms, no plugins, no nested frames."""
    return (f"default-src 'none'; script-src {runtime} {base}; style-src 'unsafe-inline' {base}; "
            f"img-src {base} data: blob:; font-src {base} data:; media-src {base} data: blob:; "
            f"connect-src {base}; frame-src 'none'; worker-src 'none'; object-src 'none'; "
            f"form-action 'none'; base-uri 'none'; sandbox allow-scripts")


def vouched_origin() -> str | None:
    """This server's origin as the request names it (`Host`), when something vouches for that
    host: PUBLIC_URL names it, a trusted proxy passed it on, or it is this machine (`localhost`,
    one of its IP addresses; overlay/web/live.py). None for any other host (issue 37: the frame's
    CSP was built from whatever `Host` a request carried)."""
    from urllib.parse import urlsplit

    from flask import current_app

    from ..web.live import _our_address
    public = current_app.config.get("PUBLIC_URL")
    if public and urlsplit(public).netloc.lower() == request.host.lower():
        return request.host_url.rstrip("/")
    if "werkzeug.proxy_fix.orig" in request.environ or _our_address(urlsplit("//" + request.host).hostname or ""):
        return request.host_url.rstrip("/")
    return None


@files.get("/ograf/frame/<gid>")
def frame(gid: str) -> Any:
    lib = library()
    rec = lib.find(gid)
    if rec is None:
        abort(404)
    runtime = url_for("static", filename="ograf/frame.js")  # relative: the page's own origin, whatever Host said
    origin = vouched_origin()
    if origin:  # the package's folder and the runtime only
        base, runtime_src = f"{origin}/ograf/pkg/{rec['pkg']}/", origin + runtime  # the whole package: a manifest may name files beside its folder
    else:  # a host nothing vouches for is not written into the policy: the browser's own origin
        base = runtime_src = "'self'"
    html = render_template_string(FRAME, name=rec["manifest"].get("name", gid), gid=gid,
                                  main=lib.main_url(rec), runtime=runtime)
    resp = make_response(html)
    resp.headers["Content-Type"] = "text/html; charset=utf-8"
    resp.headers["Content-Security-Policy"] = frame_csp(base, runtime_src)
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["X-DNS-Prefetch-Control"] = "off"  # <link rel=dns-prefetch> is governed by no CSP
    return resp


def register(app: Flask) -> None:
    app.register_blueprint(bp)
    app.register_blueprint(files)

