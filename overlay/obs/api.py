"""`/api/obs` (operators): OBS control's status, reloading obs.toml, a test switch."""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, jsonify

from ..web.api import body, error
from ..web.auth import operator_required
from ..rules.errors import InputError
from .control import ConfigError, ObsControl

bp = Blueprint("obs", __name__, url_prefix="/api/obs")


def register(app: Flask) -> None:
    """Build OBS control from the settings and obs.toml, listen to the games, and start its task
    (now when configured, else when a reload finds a URL)."""
    from ..broadcast.hub import socketio

    svc = app.extensions["chgk"]
    cfg = app.config
    password = cfg.get("OBS_PASSWORD")
    control = ObsControl(svc.sessions, cfg["DATA"], url=cfg.get("OBS_URL") or None,
                         password=None if password is None else str(password))
    app.extensions["chgk_obs"] = control
    svc.sessions.subscribe(control.on_change)
    app.register_blueprint(bp)
    control.attach(socketio.start_background_task, socketio.sleep)


def control() -> ObsControl:
    return current_app.extensions["chgk_obs"]


@bp.get("")
@operator_required
def status() -> Any:
    return jsonify(control().status())


@bp.post("/reload")
@operator_required
def reload() -> Any:
    try:
        control().reload()
    except ConfigError as exc:
        return error(400, "bad_obs_config", exc.message)
    return jsonify(control().status())


@bp.post("/scene")
@operator_required
def switch() -> Any:
    """Switch OBS's program scene now: `{"scene": "ЧГК · Стол"}` (tests the connection)."""
    data = body()
    scene = data.get("scene") if isinstance(data, dict) else None
    if not isinstance(scene, str) or not scene.strip() or len(scene) > 200:
        raise InputError("bad_field", "Send {\"scene\": \"<OBS scene name>\"}.")
    if control().config is None:
        return error(409, "obs_off", "OBS control is off: set url in obs.toml (docs/OBS.md), then POST /api/obs/reload.")
    control().switch(scene.strip(), "manual")
    return jsonify(control().status())
