"""SQLite for rundowns: one row per rundown holding its document (segments, items, focus, cues)
and its rev, in the same database and transactions as the games (overlay/core/store.py)."""
from __future__ import annotations

import json
import sqlite3

from ..core.store import Store

SCHEMA = """
CREATE TABLE IF NOT EXISTS rundowns (
    id TEXT PRIMARY KEY,
    n INTEGER NOT NULL UNIQUE,
    rev INTEGER NOT NULL,
    doc TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
"""


class RundownStore:
    def __init__(self, store: Store) -> None:
        self.store = store
        with store.transaction() as db:
            db.execute(SCHEMA)

    def all(self) -> list[dict]:
        return [json.loads(doc) for (doc,) in self.store.query("SELECT doc FROM rundowns ORDER BY n")]

    def next_id(self) -> str:
        n = self.store.query("SELECT COALESCE(MAX(n), 0) + 1 FROM rundowns")[0][0]
        return f"r{n}"

    def write(self, doc: dict, *, at: int, journal: dict, db: sqlite3.Connection | None = None) -> None:
        """Insert or replace the document; with `db`, inside a transaction the caller holds."""
        if db is None:
            with self.store.transaction() as tx:
                self.write(doc, at=at, journal=journal, db=tx)
            return
        n = int(doc["id"][1:])
        db.execute("INSERT INTO rundowns (id, n, rev, doc, created_at) VALUES (?,?,?,?,?) "
                   "ON CONFLICT(id) DO UPDATE SET rev=excluded.rev, doc=excluded.doc",
                   (doc["id"], n, doc["rev"], json.dumps(doc, ensure_ascii=False), at))
        db.execute("INSERT INTO journal (game_id, at, kind, body, rev) VALUES (?,?,?,?,?)",
                   (None, at, "rundown", json.dumps({"rundown": doc["id"], **journal}, ensure_ascii=False),
                    doc["rev"]))

    def delete(self, rundown_id: str, *, at: int) -> None:
        with self.store.transaction() as db:
            db.execute("DELETE FROM rundowns WHERE id=?", (rundown_id,))
            db.execute("INSERT INTO journal (game_id, at, kind, body, rev) VALUES (?,?,?,?,?)",
                       (None, at, "rundown", json.dumps({"rundown": rundown_id, "action": "delete"}), None))
