"""An edge's HTTP API: the public reads, from the mirror; every change is refused (405) with
the writer named as the place to make it."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, jsonify, request

from ..core.clock import now_ms
from ..broadcast.fanout import fanout
from .hub import fresh, mirror, socketio

bp = Blueprint("edge_api", __name__, url_prefix="/api")
READ_ONLY = ("This is a read-only edge: it shows the game, it does not change it. "
             "Send commands, logins and graphics to the writer (chgk-overlay serve).")


def _not_ready() -> Any:
    return jsonify(error={"code": "not_synced", "message": "This edge has not read the game state from "
                                                           "Redis yet; try again in a moment."}), 503


@bp.get("/time")
def time_now() -> Any:
    return jsonify(server_now=now_ms())


@bp.get("/edge")
def edge_status() -> Any:
    """For health checks and the tests: is the edge fed, and from which writer start."""
    m = mirror()
    clients = sum(1 for _ in socketio.server.manager.get_participants("/overlay", None))
    return jsonify(edge=True, synced=m.synced, redis=m.redis_up, epoch=m.epoch, on_air=m.on_air, clients=clients,
                   revs={g: s.get("rev") for g, s in m.games.items()}, graphics_seq=m.graphics.get("seq"),
                   dropped=m.dropped, fanout={"direct": fanout.direct, "queued": fanout.queued, "waited": fanout.waited})


@bp.get("/games")
def list_games() -> Any:
    """Only what the public states hold: ids, titles, scores, revs."""
    m = mirror()
    return _not_ready() if not m.synced else jsonify(games=m.summary(), on_air=m.on_air)


@bp.get("/games/<game_id>/public")
def get_public(game_id: str) -> Any:
    m = mirror()
    if not m.synced:
        return _not_ready()
    if game_id not in m.games:
        return jsonify(error={"code": "unknown_game", "message": f"There is no game {game_id!r}. "
                                                                 "GET /api/games lists the games."}), 404
    return jsonify(fresh(m.games[game_id]))


@bp.get("/on-air")
def get_on_air() -> Any:
    return jsonify(game=mirror().on_air)


@bp.get("/graphics")
def get_graphics() -> Any:
    return jsonify(dict(mirror().graphics, server_now=now_ms()))


@bp.get("/public/league")
def public_league() -> Any:
    league = mirror().league
    return jsonify(league["index"]) if league else jsonify(seasons=[], series=[])


@bp.get("/public/seasons/<sid>")
def public_season(sid: str) -> Any:
    view = ((mirror().league or {}).get("seasons") or {}).get(sid)
    if view is None:
        return jsonify(error={"code": "unknown_season", "message": f"There is no season {sid!r}."}), 404
    top = request.args.get("top", "")
    if top.isascii() and top.isdigit() and int(top) > 0:
        view = dict(view, rating=view["rating"][:int(top)])
    return jsonify(view)


@bp.get("/public/series/<xid>")
def public_series(xid: str) -> Any:
    view = ((mirror().league or {}).get("series") or {}).get(xid)
    if view is None:
        return jsonify(error={"code": "unknown_series", "message": f"There is no series {xid!r}."}), 404
    return jsonify(view)


def register_refusals(app: Flask) -> None:
    """Changes, the panel and anything else under /api: a clear 405 or 404, never a 500."""

    @app.before_request
    def _refuse_changes() -> Any:
        path = request.path
        if path.startswith("/control") or (path.startswith("/api/") and request.method
                                           not in ("GET", "HEAD", "OPTIONS")):
            return jsonify(error={"code": "read_only_edge", "message": READ_ONLY}), 405
        return None

    @app.errorhandler(404)
    def _not_found(exc: Any) -> Any:
        if request.path.startswith("/api/"):
            return jsonify(error={"code": "not_found", "message": "An edge serves only the public reads: "
                                  "/api/games, /api/games/<id>/public, /api/graphics, /api/on-air, /api/time, "
                                  "/api/public/league, /api/public/seasons/<id>, /api/public/series/<id>."}), 404
        return exc

    @app.errorhandler(405)
    def _method(exc: Any) -> Any:
        return jsonify(error={"code": "read_only_edge", "message": READ_ONLY}), 405
