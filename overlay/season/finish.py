"""The order in which games finished: the «Star Wars» tie-break ("the team whose game was
played later wins") and the Final's "second team". Recorded by listening to the session's
changes: a `game_over` adds the game at the end of the order, an undo that takes the game_over
back removes it (a game finished again later is then later)."""
from __future__ import annotations

import logging

from ..core.session import Change
from .core import Core
from .schema import select

log = logging.getLogger("chgk_overlay.season")


def _has_game_over(change: Change) -> bool:
    return any(e.get("type") == "game_over" for e in change.events)


class FinishOrder:
    def __init__(self, core: Core) -> None:
        self.core = core

    def on_change(self, change: Change) -> None:
        """Session listener. The command is already recorded: a failure here is logged, and
        `reconcile` (at start and on every read) repairs the order from the games' logs."""
        if change.game_id is None or not _has_game_over(change):
            return
        try:
            if change.kind == "undo":
                self._drop(change.game_id)
            else:
                self._append(change.game_id, self.core.now())
        except Exception:
            log.exception("could not record the finish of %s", change.game_id)
        self.core.changed(game=change.game_id)

    def _append(self, game_id: str, at: int) -> None:
        with self.core.store.transaction() as db:
            db.execute("DELETE FROM league_finish_order WHERE game_id=?", (game_id,))
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM league_finish_order").fetchone()[0]
            db.execute("INSERT INTO league_finish_order (game_id, seq, at) VALUES (?,?,?)", (game_id, seq, at))

    def _drop(self, game_id: str) -> None:
        with self.core.store.transaction() as db:
            db.execute("DELETE FROM league_finish_order WHERE game_id=?", (game_id,))

    def order(self) -> dict[str, int]:
        """game id → position in the finish order (larger = later), for finished games only."""
        recorded = {r["game_id"]: r["seq"] for r in select(self.core.store, "game_id, seq", "FROM league_finish_order")}
        finished = {g for g, live in list(self.core.sessions.games.items()) if live.game.status == "finished"}
        if set(recorded) != finished:
            self.reconcile()
            recorded = {r["game_id"]: r["seq"] for r in select(self.core.store, "game_id, seq", "FROM league_finish_order")}
        return recorded

    def reconcile(self) -> None:
        """Bring the order in line with the games: finished games missing from it are added in the
        order of their recorded game_over events; games no longer finished are removed."""
        with self.core.sessions.lock:
            finished = {g for g, live in self.core.sessions.games.items() if live.game.status == "finished"}
        recorded = {r["game_id"] for r in select(self.core.store, "game_id", "FROM league_finish_order")}
        for game_id in recorded - finished:
            self._drop(game_id)
        missing = []
        for game_id in finished - recorded:
            ends = [row["at"] for row in self.core.store.log(game_id) if row["event"].get("type") == "game_over"]
            missing.append((ends[-1] if ends else 0, game_id))
        for at, game_id in sorted(missing):
            self._append(game_id, at)
