"""Socket.IO: `/overlay` (public, read-only) and `/control` (operators).

Rooms: a client follows either the on-air game (room "air") or one game ("game:<id>").
One view is made per change and sent to a room, never once per client.
"""
from __future__ import annotations

from typing import Any

from flask import request, session
from flask_socketio import SocketIO, emit, join_room, leave_room

from ..web.auth import check_preview_key, logged_in, on_logout, token_attempt
from .fanout import fanout
from .patch import PATCH, patch
from ..rules import InputError
from ..core.session import Change
from ..web.services import Services, services
from ..core.store import StorageError

socketio = SocketIO()
OVERLAY, CONTROL = "/overlay", "/control"
AIR = "air"
PREVIEW = "preview"
MAX_LISTED = 200  # overlays listed for the operators: anyone may connect, the list must stay short


def _room(game_id: str | None) -> str:
    return f"game:{game_id}" if game_id else AIR


def _state(svc: Services, game_id: str | None, public: bool) -> dict | None:
    game_id = game_id or svc.sessions.on_air
    if game_id not in svc.sessions.games:
        return None
    live = svc.sessions.games[game_id]
    now = svc.sessions.clock()
    return svc.sessions.public(live, now) if public else svc.operator_state(live)


def _follow(svc: Services, game_id: Any, public: bool) -> dict:
    if game_id is not None:
        svc.sessions.get(game_id)  # 404 for an unknown game
    fanout.settle()  # the old room's message going out must not come after this answer
    for room in (AIR, *(_room(g) for g in svc.sessions.games)):
        leave_room(room)
    join_room(_room(game_id))
    svc.followers[request.sid] = game_id
    state = _state(svc, game_id, public)
    emit("state", state)
    return {"game": game_id or svc.sessions.on_air, "state": state}


# /overlay: overlays and any public screen -------------------------------------------------------

@socketio.on("connect", namespace=OVERLAY)
def overlay_connect(auth: Any = None) -> None:
    """An overlay connects: it follows the on-air game and gets the state and graphics at once.
    `auth: {"patches": 1}`: later changes come as `state_patch` (overlay/broadcast/patch.py)."""
    svc = services()
    join_room(AIR)
    svc.followers[request.sid] = None
    if isinstance(auth, dict) and auth.get("patches"):
        svc.patchers.add(request.sid)
    emit("state", _state(svc, None, public=True))
    emit("graphics", svc.graphics.payload())
    if isinstance(auth, dict) and auth.get("preview") and svc.rundowns is not None:
        # ?preview=1: the focused rundown item before it goes to air — an operator's view only
        if not (check_preview_key(auth.get("key")) or _operator(auth)):
            emit("preview", {"error": {"code": "preview_needs_operator", "message": PREVIEW_REFUSED}})
            return
        join_room(PREVIEW)
        emit("preview", svc.rundowns.preview())


PREVIEW_REFUSED = ("The preview shows what is not on air yet: open it logged in to the panel, or with the "
                   "preview key after # in the page's address (#key=..., the rundown desk shows the address), "
                   "or the operators' token (#token=...).")


def _operator(auth: Any) -> bool:
    """A login cookie (the panel and its same-origin frames) or the operators' token in the
    socket's auth (scripts; OBS pages take it from their URL's #fragment, never sent in a URL)."""
    token = auth.get("token") if isinstance(auth, dict) else None
    return (token is not None and token_attempt(token) == "ok") or logged_in()


@socketio.on("disconnect", namespace=OVERLAY)
def overlay_disconnect(*_: Any) -> None:
    svc = services()
    svc.followers.pop(request.sid, None)
    svc.overlays.pop(request.sid, None)
    svc.patchers.discard(request.sid)


@socketio.on("follow", namespace=OVERLAY)
def overlay_follow(data: Any = None, *_: Any) -> dict:
    """An overlay pinned with ?game=<id> follows that game instead of the on-air one."""
    return _guard(lambda svc: _follow(svc, _game_field(data), public=True))


@socketio.on("resync", namespace=OVERLAY)
def overlay_resync(*_: Any) -> None:
    """A patched overlay missed the state a `state_patch` applies to: the whole state again, queued
    behind what the socket has, so every later patch applies to it."""
    svc = services()
    fanout.settle()  # a patch going out in the background must not come after this state
    emit("state", _state(svc, svc.followers.get(request.sid), public=True))


@socketio.on("hello", namespace=OVERLAY)
def overlay_hello(data: Any = None, *_: Any) -> None:
    """An overlay says which graphic it is, so the panel can list and reload it: one entry per
    connection (dropped on disconnect), at most MAX_LISTED in all — the rest stay unlisted."""
    svc = services()
    if isinstance(data, dict) and (request.sid in svc.overlays or len(svc.overlays) < MAX_LISTED):
        svc.overlays[request.sid] = {"sid": request.sid, "graphic": str(data.get("graphic", ""))[:40],
                                     "page": str(data.get("page", ""))[:300],
                                     "since": svc.sessions.clock()}


@socketio.on("time", namespace=OVERLAY)
def overlay_time(*_: Any) -> dict:
    """Clock sync: the client measures the round trip and its offset from the server's clock."""
    return {"server_now": services().sessions.clock()}


# /control: panels and scripts with a login or a token ---------------------------------------------

@socketio.on("connect", namespace=CONTROL)
def control_connect(auth: Any = None) -> bool:
    token = auth.get("token") if isinstance(auth, dict) else None
    by_token = token is not None and token_attempt(token) == "ok"
    if not (by_token or logged_in()):
        return False
    svc = services()
    if not by_token:
        svc.control_logins[request.sid] = session.get("login", "")
    join_room(AIR)
    svc.followers[request.sid] = None
    emit("state", _state(svc, None, public=False))
    emit("graphics", svc.graphics.payload())
    return True


@socketio.on("disconnect", namespace=CONTROL)
def control_disconnect(*_: Any) -> None:
    svc = services()
    svc.followers.pop(request.sid, None)
    svc.control_logins.pop(request.sid, None)


@on_logout
def drop_login(login: str) -> None:
    """A panel logged out: close every /control socket that came in with that login."""
    svc = services()
    for sid in [s for s, value in svc.control_logins.items() if value == login]:
        socketio.server.disconnect(sid, namespace=CONTROL)


@socketio.on("follow", namespace=CONTROL)
def control_follow(data: Any = None, *_: Any) -> dict:
    return _guard(lambda svc: _follow(svc, _game_field(data), public=False))


@socketio.on("command", namespace=CONTROL)
def control_command(data: Any = None, *_: Any) -> dict:
    """A panel sends a command; the answer is what POST /api/games/<id>/commands would return."""
    def run(svc: Services) -> dict:
        game_id = _target(svc, data)
        body = {k: v for k, v in data.items() if k != "game"}
        return {"state": svc.operator_state(svc.sessions.execute(game_id, body, source="panel"))}
    return _guard(run)


@socketio.on("undo", namespace=CONTROL)
def control_undo(data: Any = None, *_: Any) -> dict:
    def run(svc: Services) -> dict:
        body = data if isinstance(data, dict) else {}
        return {"state": svc.operator_state(svc.sessions.undo(_target(svc, body), body, source="panel"))}
    return _guard(run)


@socketio.on("graphics", namespace=CONTROL)
def control_graphics(data: Any = None, *_: Any) -> dict:
    return _guard(lambda svc: svc.graphics.apply(data, source="panel"))


@socketio.on("rundown", namespace=CONTROL)
def control_rundown(data: Any = None, *_: Any) -> dict:
    """A desk or a Stream Deck module acts on a rundown: {"rundown": id (default: the current
    one), "action", "item"?, "expected_rev"?}; the answer is POST /api/rundowns/<id>/actions'."""
    def run(svc: Services) -> dict:
        if not isinstance(data, dict):
            raise InputError("bad_json", "Send {\"rundown\"?, \"action\", \"item\"?, \"expected_rev\"?}.")
        body = {k: v for k, v in data.items() if k != "rundown"}
        return svc.rundowns.act(data.get("rundown") or "current", body, source="panel")
    return _guard(run)


@socketio.on("rundown_variables", namespace=CONTROL)
def control_rundown_variables(data: Any = None, *_: Any) -> dict:
    """Companion's variables of a rundown (default: the current one), as GET .../variables."""
    rid = data.get("rundown") if isinstance(data, dict) else None
    return _guard(lambda svc: svc.rundowns.variables(rid or "current"))


def _game_field(data: Any) -> Any:
    return data.get("game") if isinstance(data, dict) else None


def _target(svc: Services, data: Any) -> str:
    if not isinstance(data, dict):
        raise InputError("bad_command", "A command must be a JSON object with a 'type'.")
    game_id = data.get("game") or svc.sessions.on_air
    if game_id is None:
        raise InputError("no_game_on_air", "No game is on air: name the game or put one on air.")
    return game_id


def _guard(run: Any) -> dict:
    """Socket handlers answer like the HTTP API: the result, or {"error", "status"}."""
    try:
        return run(services())
    except InputError as exc:
        return {"error": exc.as_json(), "status": exc.status}
    except StorageError as exc:
        return {"error": {"code": exc.code, "message": exc.message}, "status": exc.status}


# broadcasting --------------------------------------------------------------------------------------

def broadcast(svc: Services, change: Change) -> None:
    """Send the new views to every room that shows the game: overlays, then panels."""
    broadcast_overlays(svc, change)
    broadcast_panels(svc, change)


def broadcast_overlays(svc: Services, change: Change) -> None:
    """Early listener on the session (told before a command's fsync): the public view to
    `/overlay`. It acknowledges nothing to an operator, so it need not wait for the disk."""
    if change.kind == "moment":
        return
    if change.kind == "graphics":
        fanout.emit("graphics", svc.graphics.payload(), OVERLAY)
        return
    live = svc.sessions.games[change.game_id]
    now = svc.sessions.clock()
    _send_public(svc, _rooms(svc, live.id), svc.sessions.public(live, now))
    if change.kind == "on_air":
        # a finished game off the air shows no texts (RULES.md §6), one back on the air shows them
        # again: the overlays pinned to the others are told too, so that they show what the public
        # API shows and `sent` stays what their room holds (a patch's base is a rev, and no rev moved)
        for game_id, other in svc.sessions.games.items():
            if game_id == live.id or other.game.status != "finished":
                continue
            before, public = svc.sent.get(_room(game_id)), svc.sessions.public(other, now)
            if before is None or public.get("round") != before.get("round"):
                _send_public(svc, [_room(game_id)], public)


def _send_public(svc: Services, rooms: list[str], public: dict) -> None:
    """A public view to `rooms`, each remembering it as its last (`sent`: the next patch's base)."""
    if svc.patchers:
        # overlays that asked for patches get what changed since the last state sent to their room;
        # a room whose last state was another game's (the on-air game changed) gets it whole
        by_base: dict[int, list[str]] = {}
        for room in rooms:
            by_base.setdefault(id(svc.sent.get(room)), []).append(room)
        for group in by_base.values():
            before = svc.sent.get(group[0])
            same = before is not None and (before.get("id"), before.get("epoch")) == (public.get("id"), public.get("epoch"))
            fanout.emit("state", public, OVERLAY, group,
                        alt=(svc.patchers, PATCH, patch(before, public)) if same else None)
    else:
        fanout.emit("state", public, OVERLAY, rooms)
    for room in rooms:
        svc.sent[room] = public


def broadcast_panels(svc: Services, change: Change) -> None:
    """Listener on the session, told once the change is durable: the operators' view to `/control`."""
    if change.kind == "moment":
        return
    if change.kind == "graphics":
        socketio.emit("graphics", svc.graphics.payload(), namespace=CONTROL)
        return
    live = svc.sessions.games[change.game_id]
    operator = svc.operator_state(live)
    for room in _rooms(svc, live.id):
        socketio.emit("state", operator, namespace=CONTROL, to=room)


def _rooms(svc: Services, game_id: str) -> list[str]:
    return [_room(game_id)] + ([AIR] if game_id == svc.sessions.on_air else [])


def media_replaced(svc: Services, media_id: str) -> None:
    """A picture got new content (a new URL): the graphics and games that show it are sent again."""
    svc.graphics.refresh(media_id)
    for live in list(svc.sessions.games.values()):
        if any((q.get("author") or {}).get("photo") == media_id
               for s in live.game.sectors for q in s.questions):
            broadcast(svc, Change("media", live.id, live.rev, []))


def rundown_changed(svc: Services, kind: str, payload: dict) -> None:
    """Rundown listener: panels get every rundown change; preview outputs their focused item;
    a finished auto-out item is told to both (`rundown_done`)."""
    if kind == "preview":
        fanout.settle()  # after the graphics going out to the overlays, as it was made
        socketio.emit("preview", payload, namespace=OVERLAY, to=PREVIEW)
    elif kind == "done":
        socketio.emit("rundown_done", payload, namespace=CONTROL)
        fanout.settle()
        socketio.emit("rundown_done", payload, namespace=OVERLAY)
    else:
        socketio.emit("rundown" if kind == "rundown" else "rundown_deleted", payload, namespace=CONTROL)


def reload_overlay(sid: str) -> bool:
    if sid not in services().overlays:
        return False
    socketio.emit("reload", {}, namespace=OVERLAY, to=sid)
    return True


def overlay_transport(sid: str) -> str:
    """How an overlay is connected: "websocket" (the broadcast writes to it directly) or "polling"."""
    eio_sid = socketio.server.manager.eio_sid_from_sid(sid, OVERLAY)
    return "websocket" if eio_sid is not None and fanout.has_websocket(eio_sid) else "polling"
