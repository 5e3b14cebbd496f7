"""`/api/packs`: import, list, read, delete and fill envelopes from question packs. Operators
only — a pack holds unplayed questions and answers."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from ..web.api import body, error
from ..core.clock import now_ms
from ..web.auth import operator_required
from . import MAX_PACK_BYTES, PackError, parse_pack
from .fill import fill_sectors
from .model import Pack
from .store import PackStore, clean_filename

bp = Blueprint("packs", __name__, url_prefix="/api/packs")


def register(app: Flask) -> None:
    app.extensions["chgk_packs"] = PackStore(app.extensions["chgk"].store)
    app.register_blueprint(bp)


def packs() -> PackStore:
    return current_app.extensions["chgk_packs"]


def pack_limit() -> int:
    """The parser's own limit, lowered (never raised) by the MAX_PACK_BYTES setting."""
    return min(int(current_app.config.get("MAX_PACK_BYTES") or MAX_PACK_BYTES), MAX_PACK_BYTES)


@bp.errorhandler(PackError)
def _pack_error(exc: PackError) -> Any:
    return jsonify(error={"code": "bad_pack", "message": exc.message, "line": exc.line}), 400


@bp.errorhandler(HTTPException)
def _http_error(exc: HTTPException) -> Any:
    if exc.code == 413:
        return error(413, "pack_too_large", f"The pack is larger than {pack_limit()} bytes; split it.")
    return error(exc.code or 500, (exc.name or "error").lower().replace(" ", "_"), exc.description or "")


@bp.post("")
@operator_required
def import_pack() -> Any:
    request.max_content_length = pack_limit()  # packs are bigger than the API's 1 MiB bodies
    raw = request.get_data(cache=False)
    filename = clean_filename(request.args.get("filename"))
    pack = parse_pack(raw, filename)
    summary, created = packs().add(pack, filename=filename, raw=raw, at=now_ms())
    return jsonify({**summary, "existing": not created}), 201 if created else 200


@bp.get("")
@operator_required
def list_packs() -> Any:
    return jsonify(packs=packs().list())


@bp.get("/<pack_id>")
@operator_required
def get_pack(pack_id: str) -> Any:
    found = packs().get(pack_id)
    if found is None:
        return _unknown(pack_id)
    return jsonify(found)


@bp.delete("/<pack_id>")
@operator_required
def delete_pack(pack_id: str) -> Any:
    if not packs().delete(pack_id):
        return _unknown(pack_id)
    return jsonify(deleted=pack_id)


@bp.post("/<pack_id>/fill")
@operator_required
def fill(pack_id: str) -> Any:
    found = packs().get(pack_id)
    if found is None:
        return _unknown(pack_id)
    return jsonify(fill_sectors(Pack.from_dict(found), body()))


def _unknown(pack_id: str) -> Any:
    return error(404, "unknown_pack", f"No pack {pack_id!r}. GET /api/packs lists the imported packs.")
