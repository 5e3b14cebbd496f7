"""HTTP for the media library (API.md, Media): `/api/media` for operators, `/media/<file>` for
everyone (the overlays show the pictures; their names are content hashes, so they never change)."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, abort, jsonify, request, send_file

from ..web.auth import operator_required
from .library import CSP, MAX_BYTES, Media, MediaInUse, MediaRefused
from ..web.services import services
from ..web.uploads import uploaded_file

bp = Blueprint("media_api", __name__, url_prefix="/api/media")
files = Blueprint("media_files", __name__)


def library() -> Media:
    return services().media


def _too_large(length: int) -> MediaRefused:
    e = MediaRefused("too_large", f"The file is {length / 1048576:.1f} MB; the library takes files up to {MAX_BYTES // 1048576} MB.")
    e.status = 413
    return e


def _upload() -> tuple[bytes, str]:
    return uploaded_file(MAX_BYTES, _too_large, "the picture")


@bp.get("")
@operator_required
def list_media() -> Any:
    return jsonify(media=library().list())


@bp.post("")
@operator_required
def upload() -> Any:
    raw, name = _upload()
    return jsonify(library().add(raw, request.form.get("name") or name)), 201


@bp.get("/<media_id>")
@operator_required
def get_media(media_id: str) -> Any:
    rec = library().get(media_id)
    return jsonify({**rec, "used_by": library().used_by(media_id)})


@bp.put("/<media_id>")
@operator_required
def replace(media_id: str) -> Any:
    library().get(media_id)  # 404 before reading a body for nothing
    raw, name = _upload()
    return jsonify(library().replace(media_id, raw, request.form.get("name") or name))


@bp.delete("/<media_id>")
@operator_required
def delete(media_id: str) -> Any:
    try:
        library().delete(media_id)
    except MediaInUse as exc:
        return jsonify(error={**exc.as_json(), "used_by": exc.used_by},
                       used_by=exc.used_by), 409
    return jsonify(deleted=media_id)


@files.get("/media/<name>")
def media_file(name: str) -> Any:
    found = library().file(name)
    if found is None:
        abort(404)
    path, mime = found
    resp = send_file(path, mimetype=mime, max_age=31_536_000, conditional=True, etag=True)
    resp.headers["Cache-Control"] = "public, max-age=31536000, immutable"  # the name is the content
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Content-Security-Policy"] = CSP
    return resp


def register(app: Flask) -> None:
    app.register_blueprint(bp)
    app.register_blueprint(files)
