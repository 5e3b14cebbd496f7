"""Imported packs in SQLite: the parsed pack as JSON plus what a list needs (title, counts).

Packs are secret (they hold unplayed questions): only operator endpoints and the CLI read them.
A pack is parsed completely before anything is written, and written with one INSERT inside one
transaction, so an import either leaves a whole pack or nothing.
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from ..core.store import Store
from .model import Pack

SCHEMA = """
CREATE TABLE IF NOT EXISTS packs (
    id TEXT PRIMARY KEY,
    n INTEGER NOT NULL UNIQUE,
    title TEXT NOT NULL,
    filename TEXT NOT NULL,
    format TEXT NOT NULL,
    encoding TEXT NOT NULL,
    questions INTEGER NOT NULL,
    tours TEXT NOT NULL,        -- summary: [{"title", "questions": N}]
    sha256 TEXT NOT NULL,       -- of the file as uploaded: the same file twice is one pack
    imported_at INTEGER NOT NULL,
    body TEXT NOT NULL          -- Pack.to_dict() as JSON
)"""
MAX_FILENAME = 200
_COLUMNS = "id, title, filename, format, encoding, questions, tours, imported_at"


def clean_filename(name: str | None) -> str:
    """The base name a client gave (either slash), trimmed; "" when none."""
    base = os.path.basename((name or "").replace("\\", "/")).strip()
    return "".join(ch for ch in base if ch.isprintable())[:MAX_FILENAME]


def tour_summary(pack: Pack) -> list[dict[str, Any]]:
    return [{"title": t.title, "questions": len(t.questions)} for t in pack.tours]


class PackStore:
    def __init__(self, store: Store) -> None:
        self.store = store
        with store.transaction() as db:
            db.execute(SCHEMA)

    def add(self, pack: Pack, *, filename: str, raw: bytes, at: int) -> tuple[dict[str, Any], bool]:
        """Store a parsed pack; (summary, created). The same bytes imported again give the
        existing pack and created=False rather than a duplicate."""
        digest = hashlib.sha256(raw).hexdigest()
        body = json.dumps(pack.to_dict(), ensure_ascii=False)
        with self.store.transaction() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM packs WHERE sha256=?", (digest,)).fetchone()
            if row:
                return _summary(row), False
            n = db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM packs").fetchone()[0]
            pack_id = f"p{n}"
            db.execute(
                "INSERT INTO packs (id, n, title, filename, format, encoding, questions, tours, sha256, "
                "imported_at, body) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (pack_id, n, pack.title, filename, pack.format, pack.encoding, pack.question_count,
                 json.dumps(tour_summary(pack), ensure_ascii=False), digest, at, body))
            row = db.execute(f"SELECT {_COLUMNS} FROM packs WHERE id=?", (pack_id,)).fetchone()
        return _summary(row), True

    def list(self) -> list[dict[str, Any]]:
        return [_summary(r) for r in self.store.query(f"SELECT {_COLUMNS} FROM packs ORDER BY n")]

    def get(self, pack_id: str) -> dict[str, Any] | None:
        """The summary fields plus the whole pack (title, date, editors, info, url, tours with
        their questions); every question gets `ref` "T.Q" (1-based tour, 1-based position)."""
        rows = self.store.query(f"SELECT {_COLUMNS}, body FROM packs WHERE id=?", (pack_id,))
        if not rows:
            return None
        summary = _summary(rows[0][:-1])
        pack = json.loads(rows[0][-1])
        for t, tour in enumerate(pack["tours"], 1):
            for q, question in enumerate(tour["questions"], 1):
                question["ref"] = f"{t}.{q}"
        return {**summary, **pack, "questions": summary["questions"]}

    def delete(self, pack_id: str) -> bool:
        with self.store.transaction() as db:
            return db.execute("DELETE FROM packs WHERE id=?", (pack_id,)).rowcount > 0


def _summary(row: tuple) -> dict[str, Any]:
    pack_id, title, filename, fmt, encoding, questions, tours, imported_at = row
    return {"id": pack_id, "title": title, "filename": filename, "format": fmt, "encoding": encoding,
            "questions": questions, "tours": json.loads(tours), "imported_at": imported_at}
