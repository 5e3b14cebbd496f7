"""The club league season, its Final, and the «Star Wars» series (RULES.md §4, §6; issue 7).

`League` ties the parts together over the app's store and live games:
members, seasons (game days, holdings), holdings (registrations, fees, teams), results (rating,
best players, Final teams, the Final, awards), series, and the finish order of games. The rules
themselves are `overlay.rules.season` / `series` / `standings`; the HTTP API is `api.py`.
`init_season(app, svc)` creates the tables, subscribes to the session and registers the API.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.session import Sessions
from ..core.store import Store
from .core import Core, Notify
from .finish import FinishOrder
from .games import GameMaker
from .holdings import Holdings
from .imports import Setup
from .members import Members
from .results import Results
from .schema import ensure_schema
from .seasons import Seasons
from .series import SeriesBook

if TYPE_CHECKING:
    from flask import Flask

    from ..web.services import Services

EXTENSION = "chgk_league"


class League:
    def __init__(self, store: Store, sessions: Sessions, notify: Notify | None = None) -> None:
        ensure_schema(store)
        self.core = Core(store, sessions, notify)
        self.members = Members(self.core)
        self.setup = Setup(self.core, self.members)  # member list import, status for many
        self.seasons = Seasons(self.core)
        self.holdings = Holdings(self.core, self.members, self.seasons)
        self.finish = FinishOrder(self.core)
        self.results = Results(self.core, self.members, self.seasons, self.holdings, self.finish)
        self.series = SeriesBook(self.core, self.finish)
        self.games = GameMaker(self.core, self.members, self.seasons, self.holdings, self.results.final_teams)
        self.finish.reconcile()
        sessions.subscribe(self.finish.on_change)
        sessions.preparers.append(self.games.prepare)  # a league game's players are members by id


def init_season(app: "Flask", svc: "Services") -> League:
    from ..broadcast.hub import OVERLAY, socketio
    from . import api

    def notify(what: dict) -> None:
        # On-air graphics fetch the public view again when they hear this (no data in the notice).
        socketio.emit("league", what, namespace=OVERLAY)
        if svc.relay:  # --redis: the edges' overlays hear it too (overlay/broadcast/relay.py)
            svc.relay.league_changed(what)

    league = League(svc.store, svc.sessions, notify)
    app.extensions[EXTENSION] = league
    app.register_blueprint(api.bp)
    return league


__all__ = ["EXTENSION", "League", "init_season"]
