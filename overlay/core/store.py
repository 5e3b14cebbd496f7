"""SQLite: the games, their event logs, the journal of what operators did, and settings.

Every write is one transaction committed before anything is broadcast (WAL, synchronous=FULL:
an acknowledged command survives SIGKILL and power loss alike).

A commit appends to the WAL and fsyncs it (we fsync the WAL file ourselves, the connection runs
synchronous=NORMAL: see `transaction`'s `deferred`, which lets a game command's overlays get their
frames while the disk syncs, with nothing acknowledged before it); copying the WAL back into the main file (a
checkpoint: the main file written and fsynced too) is not a commit's business. SQLite does it
inside whichever commit takes the WAL past 1000 pages — every ~200 commands here, that command
late by two more fsyncs. A server moves it to a thread of its own (`checkpoint_elsewhere`).
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    n INTEGER NOT NULL UNIQUE,
    rules TEXT NOT NULL,
    spec TEXT NOT NULL,
    rev INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    batch INTEGER NOT NULL,   -- one command's events share a batch
    auto INTEGER NOT NULL,    -- 1: recorded by the server's clock (time-up), not by a command
    at INTEGER NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id TEXT,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL,        -- command | undo | time_up | graphics | on_air | create | media
    body TEXT NOT NULL,
    rev INTEGER
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""


SAFETY_NET_PAGES = 10_000  # SQLite's own checkpoint once checkpoints elsewhere have not kept up


class StorageError(Exception):
    """The database refused a write (disk full, read-only folder): nothing was changed."""

    status = 503
    code = "storage_unavailable"

    def __init__(self, cause: Exception, message: str | None = None) -> None:
        self.message = message or (f"The game could not be saved ({cause}); nothing was changed. "
                                   "Check the data folder's disk space and permissions.")
        super().__init__(self.message)


def _private(path: str) -> None:
    """The database holds every question and answer: readable by the server's user only. Made
    0600 before SQLite opens it (SQLite gives its -wal and -shm files the main file's mode);
    the files of an older install are tightened too."""
    if path == ":memory:" or path.startswith("file:"):
        return
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass
    for name in (path, path + "-wal", path + "-shm"):
        try:
            os.chmod(name, 0o600)
        except FileNotFoundError:
            pass
        except OSError:  # a read-only disk: SQLite says what can still be done
            break


class Store:
    full = False  # we fsync the WAL after commits (synchronous=FULL asked for)
    _unsynced = False

    def __init__(self, path: Path | str, synchronous: str = "FULL") -> None:
        self.path = str(path)
        self._lock = threading.RLock()
        _private(self.path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        # FULL: we fsync the WAL after each commit (`_sync_wal`) instead of SQLite, so that a
        # caller may run code between the commit and the fsync (`deferred`); the same guarantee
        # (an in-memory database has no WAL and nothing to make durable)
        self.full = synchronous.upper() in ("FULL", "EXTRA", "2", "3") and str(mode).lower() == "wal"
        self._db.execute(f"PRAGMA synchronous={'NORMAL' if self.full else synchronous}")
        self._unsynced = False  # a deferred commit's WAL frames are not on the disk yet
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self._checkpoint_start: Callable[[Callable[[], None]], Any] | None = None
        self._checkpoint_every = 0
        self._since_checkpoint = 0  # commits
        self._checkpointing = False
        self.checkpoints = 0  # done elsewhere, for the tests and the benches
        self._offload: Callable[..., Any] = lambda fn, *args: fn(*args)

    def checkpoint_elsewhere(self, start: Callable[[Callable[[], None]], Any], every: int = 64) -> None:
        """Commits stop checkpointing: after every `every` commits, `start(fn)` is called to run
        `fn` — a PASSIVE checkpoint on a connection of its own — off the event loop (a real
        thread: sqlite3 releases the GIL), while commits go on appending to the WAL. SQLite's own
        checkpoint stays as a safety net for a WAL that has somehow reached 40 MB."""
        with self._lock:
            self._db.execute(f"PRAGMA wal_autocheckpoint={SAFETY_NET_PAGES}")
        self._checkpoint_start, self._checkpoint_every = start, every

    def sync_elsewhere(self, offload: Callable[..., Any]) -> None:
        """The WAL's fsync runs through `offload(fn, *args)` (a real thread under eventlet):
        the event loop goes on writing a command's frames to the overlays meanwhile. This store's
        lock is held until the disk has confirmed, so whoever must not see an unconfirmed fact
        calls `sync()` first and waits."""
        self._offload = offload

    def _committed(self) -> None:
        self._since_checkpoint += 1
        if (self._checkpoint_start is not None and self._since_checkpoint >= self._checkpoint_every
                and not self._checkpointing):
            self._checkpointing = True
            self._since_checkpoint = 0
            try:
                self._checkpoint_start(self._checkpoint)
            except Exception:  # noqa: BLE001 - the commit stands; SQLite's own checkpoint is the net
                self._checkpointing = False

    def _checkpoint(self) -> None:
        try:
            db = sqlite3.connect(self.path, isolation_level=None, timeout=10)
            try:
                for _ in range(3):  # commits that came meanwhile: the WAL restarts only once all is copied
                    _busy, in_wal, copied = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
                    if copied >= in_wal:
                        break
                self.checkpoints += 1
            finally:
                db.close()
        except sqlite3.Error:
            pass  # the next one tries again; SQLite's own checkpoint is the safety net
        finally:
            self._checkpointing = False

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @property
    def durable(self) -> bool:
        """Every commit so far is on the disk (a deferred one waits for `sync()`)."""
        return not self._unsynced

    def sync(self) -> None:
        """Make a deferred commit durable (no-op when nothing waits): before it is acknowledged."""
        with self._lock:
            if self._unsynced:
                self._sync_wal()

    def _sync_wal(self) -> None:
        # the committed frames and the WAL's header are in this file; an fdatasync of it is what
        # SQLite's synchronous=FULL does at a commit in WAL mode
        try:
            fd = os.open(self.path + "-wal", os.O_RDONLY)
            try:
                self._offload(os.fdatasync, fd)
            finally:
                os.close(fd)
        except OSError as exc:
            # the commit stands (SQLite and the screens have it) but the disk did not confirm it
            raise StorageError(exc, f"The change was recorded, but the disk did not confirm it ({exc}): it may be "
                                    "lost if the power fails. Check the data folder's disk.") from exc
        self._unsynced = False

    @contextmanager
    def transaction(self, deferred: bool = False) -> Iterator[sqlite3.Connection]:
        """One transaction, durable when this returns (synchronous=FULL); with `deferred`, durable
        only at the next `sync()` or commit: the caller must call `sync()` before it acknowledges
        anything (a game command: its overlays' frames go out first, docs/PERFORMANCE.md §10 and §13)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                yield self._db
                self._db.execute("COMMIT")
                if self.full:
                    if deferred:
                        self._unsynced = True
                    else:
                        self._sync_wal()
                self._committed()
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StorageError(exc) from exc
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise

    def query(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # games --------------------------------------------------------------------------------

    def create_game(self, spec: dict, at: int) -> str:
        with self.transaction() as db:
            n = db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM games").fetchone()[0]
            game_id = f"g{n}"
            db.execute("INSERT INTO games (id, n, rules, spec, rev, created_at) VALUES (?,?,?,?,?,?)",
                       (game_id, n, spec["rules"], json.dumps(spec, ensure_ascii=False), 0, at))
            _journal(db, game_id, at, "create", {"title": spec.get("title")}, 0)
        return game_id

    def games(self) -> list[tuple[str, dict, int, int]]:
        """(id, spec, rev, created_at) of every game, oldest first."""
        return [(i, json.loads(s), rev, at) for i, s, rev, at in
                self.query("SELECT id, spec, rev, created_at FROM games ORDER BY n")]

    def events(self, game_id: str) -> list[dict]:
        return [json.loads(b) for (b,) in
                self.query("SELECT body FROM events WHERE game_id=? ORDER BY seq", (game_id,))]

    def log(self, game_id: str) -> list[dict]:
        rows = self.query("SELECT seq, batch, auto, at, body FROM events WHERE game_id=? ORDER BY seq", (game_id,))
        return [{"seq": s, "batch": b, "auto": bool(a), "at": at, "event": json.loads(body)}
                for s, b, a, at, body in rows]

    def append(self, game_id: str, events: list[dict], *, at: int, auto: bool, rev: int,
               journal_kind: str, journal_body: dict, deferred: bool = False) -> None:
        """Record one command's (or one time-up's) events and the game's new rev, atomically
        (`deferred`: durable at the next `sync()`, see `transaction`)."""
        with self.transaction(deferred) as db:
            # Batches grow with seq, so the last row (by the primary key's index) holds both maxima.
            last = db.execute("SELECT seq, batch FROM events WHERE game_id=? ORDER BY seq DESC LIMIT 1",
                              (game_id,)).fetchone()
            seq, batch = last or (0, 0)
            db.executemany(
                "INSERT INTO events (game_id, seq, batch, auto, at, body) VALUES (?,?,?,?,?,?)",
                [(game_id, seq + i + 1, batch + 1, int(auto), at, json.dumps(e, ensure_ascii=False))
                 for i, e in enumerate(events)])
            db.execute("UPDATE games SET rev=? WHERE id=?", (rev, game_id))
            _journal(db, game_id, at, journal_kind, journal_body, rev)

    def last_command_batch(self, game_id: str) -> int | None:
        row = self.query("SELECT MAX(batch) FROM events WHERE game_id=? AND auto=0", (game_id,))
        return row[0][0]

    def drop_from(self, game_id: str, batch: int, *, at: int, rev: int, journal_body: dict,
                  deferred: bool = False) -> None:
        """Undo: drop the batch of the last command and every time-up recorded after it."""
        with self.transaction(deferred) as db:
            db.execute("DELETE FROM events WHERE game_id=? AND batch>=?", (game_id, batch))
            db.execute("UPDATE games SET rev=? WHERE id=?", (rev, game_id))
            _journal(db, game_id, at, "undo", journal_body, rev)

    # settings and journal -----------------------------------------------------------------

    def get_setting(self, key: str, default: Any = None) -> Any:
        row = self.query("SELECT value FROM settings WHERE key=?", (key,))
        return json.loads(row[0][0]) if row else default

    def set_setting(self, key: str, value: Any, *, at: int, journal_kind: str | None = None,
                    journal_body: dict | None = None, also: Any = None) -> None:
        """`also(db)`: more writes that must commit with this one (a rundown's take)."""
        with self.transaction() as db:
            if also is not None:
                also(db)
            db.execute("INSERT INTO settings (key, value) VALUES (?, ?) "
                       "ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                       (key, json.dumps(value, ensure_ascii=False)))
            if journal_kind:
                _journal(db, None, at, journal_kind, journal_body or {key: value}, None)

    def journal(self, game_id: str | None = None, limit: int = 200) -> list[dict]:
        sql = "SELECT at, kind, body, rev, game_id FROM journal"
        args: tuple = ()
        if game_id is not None:
            sql += " WHERE game_id=?"
            args = (game_id,)
        rows = self.query(sql + " ORDER BY id DESC LIMIT ?", args + (limit,))
        return [{"at": at, "kind": k, "body": json.loads(b), "rev": rev, "game": g} for at, k, b, rev, g in rows]


def _journal(db: sqlite3.Connection, game_id: str | None, at: int, kind: str, body: dict,
             rev: int | None) -> None:
    db.execute("INSERT INTO journal (game_id, at, kind, body, rev) VALUES (?,?,?,?,?)",
               (game_id, at, kind, json.dumps(body, ensure_ascii=False), rev))
