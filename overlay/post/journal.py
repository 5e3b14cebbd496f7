"""A data folder's games and journal, read-only: the render and the as-run log read what the live
server recorded and never write to it (SQLite opened with `mode=ro`; WAL readers never block the
writer)."""
from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from ..core.store import Store


class NoData(Exception):
    """The data folder holds no database (a wrong --data)."""


class ReadOnlyStore(Store):
    """`Store`'s reads over a read-only connection: no schema, no chmod, no checkpoint."""

    def __init__(self, path: Path | str) -> None:  # noqa: D107 - Store's reads only
        self.path = str(path)
        if not Path(self.path).is_file():
            raise NoData(f"there is no database at {self.path} (is --data the server's data folder?)")
        self._lock = threading.RLock()
        self._db = sqlite3.connect(f"file:{quote(self.path)}?mode=ro", uri=True, check_same_thread=False,
                                   isolation_level=None, timeout=10)
        self._checkpoint_start = None
        self.checkpoints = 0


@dataclass
class GameRecord:
    id: str
    spec: dict
    created_at: int
    log: list[dict]          # [{seq, batch, auto, at, event}], as Store.log
    journal: list[dict]      # every journal row of the game and every global one, oldest first


def read_game(store: Store, game_id: str) -> GameRecord | None:
    rows = store.query("SELECT spec, created_at FROM games WHERE id=?", (game_id,))
    if not rows:
        return None
    spec, created_at = rows[0]
    journal = [{"id": i, "at": at, "kind": k, "body": json.loads(b), "rev": rev, "game": g}
               for i, at, k, b, rev, g in store.query(
                   "SELECT id, at, kind, body, rev, game_id FROM journal WHERE game_id=? OR game_id IS NULL "
                   "OR kind='on_air' ORDER BY id", (game_id,))]
    return GameRecord(game_id, json.loads(spec), created_at, store.log(game_id), journal)


def read_media(store: Store) -> dict[str, str]:
    """The media library's pictures as {media id: URL} (as `Media.url`; none in a folder that never
    had a library)."""
    try:
        rows = store.query("SELECT n, hash, ext FROM media")
    except sqlite3.OperationalError:  # no such table
        return {}
    return {f"m{n}": f"/media/{h}.{ext}" for n, h, ext in rows}


def game_ids(store: Store) -> list[str]:
    return [i for (i,) in store.query("SELECT id FROM games ORDER BY n")]
