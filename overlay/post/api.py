"""The door of the after-the-show tools: `/api/games/<id>/as-run`, `/api/rundowns/<id>/as-run`
(JSON, or CSV with `?format=csv`, `&excel=1` for `;`), and the panel's renders (`/api/renders`)."""
from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from ..core.clock import now_ms
from ..rules import InputError
from ..web.auth import operator_required
from ..web.services import services
from .asrun import as_run, parse_fps, rundown_as_run, to_csv
from .journal import read_game

bp = Blueprint("post", __name__, url_prefix="/api")


class UnknownThing(InputError):
    status = 404


def register(app: Flask) -> None:
    from pathlib import Path

    import atexit

    from .jobs import Renders
    jobs = app.extensions["chgk_renders"] = Renders(Path(app.config["DATA"]), now_ms)
    atexit.register(jobs.close)  # a server stopping stops its renders (each removes its partial file)
    app.register_blueprint(bp)


def renders() -> Any:
    return current_app.extensions["chgk_renders"]


def _fmt() -> str:
    fmt = request.args.get("format", "json")
    if fmt not in ("json", "csv"):
        raise InputError("bad_field", f"'format' must be json or csv, got {fmt!r}.", field="format")
    return fmt


def _answer(log: dict, name: str) -> Any:
    if _fmt() == "json":
        return jsonify(log)
    text = to_csv(log, excel=request.args.get("excel") in ("1", "true", "yes"))
    return Response(text, mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="{name}.csv"', "Cache-Control": "no-store"})


@bp.get("/games/<game_id>/as-run")
@operator_required
def game_as_run(game_id: str) -> Any:
    fps = parse_fps(request.args.get("fps", 25))
    _fmt()
    record = read_game(services().store, game_id)
    if record is None:
        raise UnknownThing("unknown_game", f"There is no game {game_id!r}. GET /api/games lists the games.")
    log = as_run(record, now=now_ms(), fps=fps, timecode=request.args.get("timecode"))
    return _answer(log, f"as-run-{game_id}")


@bp.get("/rundowns/<rundown_id>/as-run")
@operator_required
def rundown_as_run_door(rundown_id: str) -> Any:
    fps = parse_fps(request.args.get("fps", 25))
    _fmt()
    store = services().store
    known = store.query("SELECT id FROM rundowns WHERE id=?", (rundown_id,)) or store.query(
        "SELECT 1 FROM journal WHERE kind='rundown' AND body LIKE ? LIMIT 1", (f'%"rundown": {json.dumps(rundown_id)}%',))
    if not known:
        raise UnknownThing("unknown_rundown", f"There is no rundown {rundown_id!r}.")
    journal = [{"at": at, "kind": k, "body": json.loads(b)} for at, k, b in
               store.query("SELECT at, kind, body FROM journal WHERE kind='graphics' ORDER BY id")]
    log = rundown_as_run(journal, rundown_id, fps=fps, timecode=request.args.get("timecode"))
    return _answer(log, f"as-run-{rundown_id}")


# renders for the panel (operators) ------------------------------------------------------------------

@bp.post("/renders")
@operator_required
def start_render() -> Any:
    from ..web.api import body
    from .jobs import check_finished
    b = body()
    if not isinstance(b, dict):
        raise InputError("bad_field", "Send {\"game\", \"graphic\", \"format\", \"fps\"}.")
    live = services().sessions.get(b.get("game"))
    check_finished(live.game.status)
    fps = b.get("fps", 25)
    job = renders().start(live.id, b.get("graphic", "scoreboard"), b.get("format", "prores"),
                          fps if isinstance(fps, int) else -1)
    return jsonify(job.view()), 202


@bp.get("/renders")
@operator_required
def list_renders() -> Any:
    return jsonify(renders=renders().list())


@bp.get("/renders/<job_id>")
@operator_required
def one_render(job_id: str) -> Any:
    return jsonify(renders().get(job_id).view())


@bp.get("/renders/<job_id>/file")
@operator_required
def render_file(job_id: str) -> Any:
    from flask import send_file
    job = renders().get(job_id)
    if job.status != "done" or not job.path.exists():
        raise UnknownThing("render_not_ready", f"Render {job_id} has no file ({job.status}).")
    return send_file(job.path, as_attachment=True, download_name=job.path.name,
                     mimetype="video/quicktime" if job.fmt == "prores" else "video/webm")


@bp.delete("/renders/<job_id>")
@operator_required
def stop_render(job_id: str) -> Any:
    return jsonify(renders().stop(job_id))
