"""An edge's Socket.IO: `/overlay` as on the writer (state on connect and on every change,
`follow`, `hello`, `time`), from the mirror; `/control` refuses every connection."""
from __future__ import annotations

from typing import Any

from flask import current_app
from flask_socketio import SocketIO, emit, join_room, leave_room

from ..broadcast.fanout import fanout
from ..broadcast.hub import AIR, CONTROL, OVERLAY, _room
from ..core.clock import now_ms
from .mirror import Mirror

socketio = SocketIO()


def mirror() -> Mirror:
    return current_app.extensions["chgk_edge"]


def fresh(state: dict | None) -> dict | None:
    """A stored state as of now: a running timer's `remaining_ms` and the `server_now` stamps."""
    if state is None:
        return None
    now = now_ms()
    out = dict(state, server_now=now)
    timer = state.get("timer")
    if isinstance(timer, dict):
        out["timer"] = dict(timer, server_now=now)
        if timer.get("running") and timer.get("ends_at"):
            out["timer"]["remaining_ms"] = max(0, timer["ends_at"] - now)
    return out


@socketio.on("connect", namespace=OVERLAY)
def overlay_connect(auth: Any = None) -> bool:
    """Refused until the edge has read the writer's state once: a blank state would wipe a
    graphic that is on air; the client retries with backoff."""
    m = mirror()
    if not m.synced:
        return False
    join_room(AIR)
    emit("state", fresh(m.games.get(m.on_air) if m.on_air else None))
    emit("graphics", dict(m.graphics, server_now=now_ms()))
    return True


@socketio.on("follow", namespace=OVERLAY)
def overlay_follow(data: Any = None, *_: Any) -> dict:
    m = mirror()
    game = data.get("game") if isinstance(data, dict) else None
    if game is not None and game not in m.games:
        return {"error": {"code": "unknown_game", "message": f"There is no game {game!r}."}, "status": 404}
    leave_room(AIR)
    for g in m.games:
        leave_room(_room(g))
    join_room(_room(game))
    state = fresh(m.games.get(game or m.on_air or ""))
    emit("state", state)
    return {"game": game or m.on_air, "state": state}


@socketio.on("hello", namespace=OVERLAY)
def overlay_hello(*_: Any) -> None:
    """Overlays introduce themselves; the writer's panel lists only its own."""


@socketio.on("time", namespace=OVERLAY)
def overlay_time(*_: Any) -> dict:
    return {"server_now": now_ms()}


@socketio.on("connect", namespace=CONTROL)
def control_connect(auth: Any = None) -> bool:
    return False  # operators connect to the writer


def wire(m: Mirror) -> None:
    """The mirror's changes go out as the writer's do: one frame per room (overlay/broadcast/fanout.py)."""
    def on_state(state: dict, on_air: bool) -> None:
        rooms = [_room(state["id"])] + ([AIR] if on_air else [])
        fanout.emit("state", state, OVERLAY, rooms)

    def on_air_changed(state: dict | None) -> None:
        fanout.emit("state", state, OVERLAY, [AIR])

    def on_graphics(payload: dict) -> None:
        fanout.emit("graphics", payload, OVERLAY)

    def on_league() -> None:
        # as on the writer: a notice without data; league graphics fetch /api/public/... again
        socketio.emit("league", {"what": "league"}, namespace=OVERLAY)

    m.on_state, m.on_air_changed, m.on_graphics, m.on_league = on_state, on_air_changed, on_graphics, on_league
