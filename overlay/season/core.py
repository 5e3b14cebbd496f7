"""What every part of the league service shares: the store, the live games, the clock, the
action log (every administrative change, with its reason) and the change notice for screens."""
from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from typing import Any

from ..core.session import Sessions
from ..core.store import Store
from .schema import select

log = logging.getLogger("chgk_overlay.season")

Notify = Callable[[dict], None]


class Core:
    def __init__(self, store: Store, sessions: Sessions, notify: Notify | None = None) -> None:
        self.store = store
        self.sessions = sessions
        self._notify = notify

    def now(self) -> int:
        return self.sessions.clock()

    def record(self, db: sqlite3.Connection, kind: str, body: dict, reason: str | None = None, *,
               season: str | None = None, series: str | None = None, member: int | None = None) -> None:
        """One administrative action, written in the same transaction as the change it records."""
        db.execute("INSERT INTO league_actions (at, season_id, series_id, member_id, kind, body, reason) "
                   "VALUES (?,?,?,?,?,?,?)",
                   (self.now(), season, series, member, kind, json.dumps(body, ensure_ascii=False), reason))

    def actions(self, *, season: str | None = None, series: str | None = None,
                member: int | None = None, limit: int = 500) -> list[dict]:
        where, args = [], []
        for column, value in (("season_id", season), ("series_id", series), ("member_id", member)):
            if value is not None:
                where.append(f"{column}=?")
                args.append(value)
        sql = "FROM league_actions" + (" WHERE " + " AND ".join(where) if where else "")
        rows = select(self.store, "id, at, season_id, series_id, member_id, kind, body, reason",
                      sql + " ORDER BY id DESC LIMIT ?", (*args, limit))
        for r in rows:
            r["body"] = json.loads(r["body"])
            r["season"], r["series"], r["member"] = r.pop("season_id"), r.pop("series_id"), r.pop("member_id")
        return rows

    def changed(self, **what: Any) -> None:
        """Tell the on-air graphics that league data changed (they fetch the public view again).
        A screen that misses this notice must not fail the change that was already recorded."""
        if self._notify is None:
            return
        try:
            self._notify({k: v for k, v in what.items() if v is not None})
        except Exception:
            log.exception("league change notice failed")
