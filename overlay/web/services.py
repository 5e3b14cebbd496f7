"""The adapters one app holds: the store, the live games, the graphics, who is connected."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import current_app

from ..graphics.game import Graphics
from ..rules.game import allowed_moves
from ..core.session import Live, Sessions
from ..core.store import Store


@dataclass
class Services:
    store: Store
    sessions: Sessions
    graphics: Graphics
    followers: dict[str, str | None] = field(default_factory=dict)  # sid → followed game
    overlays: dict[str, dict] = field(default_factory=dict)  # sid → {graphic, page, since}
    patchers: set[str] = field(default_factory=set)  # /overlay sids that asked for `state_patch`
    sent: dict[str, dict] = field(default_factory=dict)  # room → the last public state broadcast to it
    osc: Any = None
    relay: Any = None  # overlay/broadcast/relay.py, with --redis
    media: Any = None  # overlay.media.library.Media: the picture library
    rundowns: Any = None  # overlay.rundown.Rundowns: the prepared shows and their desk
    ograf: Any = None  # overlay.ograf.library.OgrafLibrary: uploaded OGraf graphics
    revoked_logins: set[str] = field(default_factory=set)  # logged-out panel sessions
    control_logins: dict[str, str] = field(default_factory=dict)  # /control sid → login it came with

    def operator_state(self, live: Live) -> dict:
        self.sessions.durable()  # an operator acts on what this shows
        now = self.sessions.clock()
        state = self.sessions.with_photos(live.operator(now))
        state["undo"] = self.sessions.undo_preview(live)
        state["moves"] = allowed_moves(live.game, now)
        return state


def services() -> Services:
    return current_app.extensions["chgk"]
