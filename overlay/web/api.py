"""HTTP JSON API (API.md). Every change goes through `Sessions.execute`/`undo`/`create`."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from .auth import operator_required
from ..broadcast.fanout import fanout
from ..graphics.game import GRAPHICS
from ..broadcast.hub import overlay_transport, reload_overlay
from ..rules import InputError
from ..schema import graphic_schema
from .services import services
from ..core.store import StorageError

bp = Blueprint("api", __name__, url_prefix="/api")


def error(status: int, code: str, message: str, params: dict | None = None) -> Any:
    body: dict[str, Any] = {"code": code, "message": message}
    if params:
        body["params"] = params  # what the pages fill into the code's words (the catalogs)
    return jsonify(error=body), status


def register_errors(app: Flask) -> None:
    """One place turns refusals into the API's error shape, for every blueprint under /api."""

    @app.errorhandler(InputError)
    def _input_error(exc: InputError) -> Any:
        if getattr(exc, "key", None):  # a graphic's data (overlay/schema): catalog key and parameters
            return jsonify(error={"code": exc.code, "message": exc.message, "key": exc.key,
                                  "params": exc.params}), exc.status
        return error(exc.status, exc.code, exc.message, exc.params)

    @app.errorhandler(StorageError)
    def _storage_error(exc: StorageError) -> Any:
        return error(exc.status, exc.code, exc.message)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        if not request.path.startswith("/api/"):
            return exc  # pages keep Flask's own error pages
        messages = {
            404: "No such endpoint. The API is described in docs/API.md.",
            405: "This endpoint does not take that method.",
            413: "The request body is too large.",
        }
        code = (exc.name or "error").lower().replace(" ", "_")
        return error(exc.code or 500, code, messages.get(exc.code or 0, exc.description or code))


def body() -> Any:
    """The JSON body, or a 400 that says why it is not JSON."""
    data = request.get_json(silent=True, force=True)
    if data is None and request.get_data(cache=True):
        raise InputError("bad_json", "The body is not valid JSON.")
    if data is None:
        raise InputError("bad_json", "Send a JSON body.")
    return data


@bp.get("/time")
def time_now() -> Any:
    return jsonify(server_now=services().sessions.clock())


@bp.get("/games")
@operator_required
def list_games() -> Any:
    svc = services()
    return jsonify(games=svc.sessions.summary(), on_air=svc.sessions.on_air)


@bp.post("/games")
@operator_required
def create_game() -> Any:
    svc = services()
    live = svc.sessions.create(body())
    return jsonify(id=live.id, state=svc.operator_state(live), warnings=live.warnings), 201


@bp.get("/games/<game_id>")
@operator_required
def get_game(game_id: str) -> Any:
    svc = services()
    return jsonify(svc.operator_state(svc.sessions.get(game_id)))


@bp.get("/games/<game_id>/public")
def get_public(game_id: str) -> Any:
    svc = services()
    return jsonify(svc.sessions.public(svc.sessions.get(game_id), svc.sessions.clock()))


@bp.post("/games/<game_id>/commands")
@operator_required
def command(game_id: str) -> Any:
    svc = services()
    svc.sessions.get(game_id)
    return jsonify(state=svc.operator_state(svc.sessions.execute(game_id, body(), source="http")))


@bp.post("/games/<game_id>/undo")
@operator_required
def undo(game_id: str) -> Any:
    svc = services()
    svc.sessions.get(game_id)
    data = request.get_json(silent=True, force=True) if request.get_data(cache=True) else {}
    if not isinstance(data, dict):
        raise InputError("bad_json", "The undo body, when given, must be a JSON object.")
    return jsonify(state=svc.operator_state(svc.sessions.undo(game_id, data, source="http")))


@bp.get("/games/<game_id>/moves")
@operator_required
def moves(game_id: str) -> Any:
    """Which commands the rules allow now, with the reason for each refusal."""
    svc = services()
    return jsonify(svc.operator_state(svc.sessions.get(game_id))["moves"])


@bp.get("/games/<game_id>/log")
@operator_required
def game_log(game_id: str) -> Any:
    svc = services()
    live = svc.sessions.get(game_id)
    return jsonify(rev=live.rev, events=svc.store.log(game_id), journal=svc.store.journal(game_id))


@bp.get("/on-air")
def get_on_air() -> Any:
    return jsonify(game=services().sessions.on_air)


@bp.put("/on-air")
@operator_required
def put_on_air() -> Any:
    data = body()
    if not isinstance(data, dict) or "game" not in data:
        raise InputError("bad_field", "Send {\"game\": \"<id>\"}.")
    svc = services()
    svc.sessions.set_on_air(data["game"], source="http")
    return jsonify(game=svc.sessions.on_air)


@bp.get("/graphics")
@operator_required
def get_graphics() -> Any:
    return jsonify(services().graphics.payload())


@bp.get("/graphics/schema")
@operator_required
def get_graphics_schema() -> Any:
    """Every graphic's data as JSON Schema with OGraf GDD types (overlay/schema): what a GDD form
    builder draws, and what every door checks."""
    return jsonify(graphics={g: graphic_schema(g) for g in GRAPHICS})


@bp.post("/graphics")
@operator_required
def post_graphics() -> Any:
    return jsonify(services().graphics.apply(body(), source="http"))


@bp.get("/overlays")
@operator_required
def list_overlays() -> Any:
    return jsonify(overlays=[dict(o, transport=overlay_transport(o["sid"]))
                             for o in services().overlays.values()],
                   fanout={"direct": fanout.direct, "queued": fanout.queued, "waited": fanout.waited})


@bp.post("/overlays/<sid>/reload")
@operator_required
def reload(sid: str) -> Any:
    if not reload_overlay(sid):
        return error(404, "unknown_overlay", "That overlay is no longer connected.")
    return jsonify(reloaded=sid)
