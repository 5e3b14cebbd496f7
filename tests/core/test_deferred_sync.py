"""A game command's overlays get their state between the commit and its fsync; nothing else does.

`Sessions` commits a command with `Store.append(deferred=True)`, tells its early listeners (the
overlays' broadcast: it acknowledges nothing to an operator), makes the commit durable, and only
then tells the other listeners (panels, edges, OSC) and answers the caller. Real SQLite files.
"""
from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from overlay.core.session import Change, Sessions
from overlay.core.store import StorageError, Store
from tests.faults.helpers import tv_spec
from tests.support import wait_for


def rows(path: Path, game_id: str) -> int:
    """What another connection sees: committed rows only."""
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT COUNT(*) FROM events WHERE game_id=?", (game_id,)).fetchone()[0]
    finally:
        db.close()


def test_overlays_are_told_after_the_commit_and_everyone_else_after_the_fsync(tmp_path: Path):
    path = tmp_path / "game.sqlite3"
    store = Store(path, "FULL")
    sessions = Sessions(store, clock=lambda: 1_700_000_000_000, rng=random.Random(3))
    live = sessions.create(tv_spec())
    seen: list[tuple[str, str, int, bool, int]] = []
    sessions.subscribe(lambda c: seen.append(("early", c.kind, c.rev, store.durable, rows(path, c.game_id))),
                       early=True)
    sessions.subscribe(lambda c: seen.append(("late", c.kind, c.rev, store.durable, rows(path, c.game_id))))

    sessions.execute(live.id, {"type": "spin", "landed": 3})
    assert store.durable, "the command was answered before its commit was on the disk"
    after_spin = rows(path, live.id)
    sessions.undo(live.id)
    assert store.durable, "the undo was answered before its commit was on the disk"

    assert [(w, k, r, d) for w, k, r, d, _ in seen] == [
        ("early", "command", 1, False), ("late", "command", 1, True),
        ("early", "undo", 2, False), ("late", "undo", 2, True)]
    # committed (visible to another connection) before even the early listener heard of it
    assert seen[0][4] == after_spin > 0 and seen[2][4] == 0


def test_a_failing_early_listener_does_not_leave_the_commit_unsynced(tmp_path: Path):
    store = Store(tmp_path / "game.sqlite3", "FULL")
    sessions = Sessions(store, clock=lambda: 1_700_000_000_000, rng=random.Random(3))
    live = sessions.create(tv_spec())
    told: list[bool] = []

    def broken(change: Change) -> None:
        raise RuntimeError("a dead socket")

    sessions.subscribe(broken, early=True)
    sessions.subscribe(lambda c: told.append(store.durable))
    sessions.execute(live.id, {"type": "spin", "landed": 3})
    assert told == [True] and store.durable


def test_other_writes_are_durable_when_their_transaction_ends(tmp_path: Path):
    store = Store(tmp_path / "game.sqlite3", "FULL")
    store.set_setting("on_air", "g1", at=1)
    assert store.durable
    with store.transaction(deferred=True) as db:
        db.execute("INSERT INTO settings (key, value) VALUES ('x', '1')")
    assert not store.durable
    store.sync()
    assert store.durable


def test_a_journal_the_disk_cannot_confirm_is_said_not_hidden(tmp_path: Path):
    """The WAL file taken from under the server (a real fault: someone cleaning the data folder):
    the commit stands in SQLite, so the answer must not claim that nothing changed."""
    path = tmp_path / "game.sqlite3"
    store = Store(path, "FULL")
    with store.transaction(deferred=True) as db:
        db.execute("INSERT INTO settings (key, value) VALUES ('x', '1')")
    Path(f"{path}-wal").unlink()
    with pytest.raises(StorageError) as caught:
        store.sync()
    assert caught.value.status == 503 and "recorded, but the disk did not confirm it" in caught.value.message
    assert not store.durable, "what was not confirmed must not be reported durable"


def test_the_fsync_runs_elsewhere_and_a_reader_waits_for_it(tmp_path: Path):
    """`sync_elsewhere`: the WAL's fsync goes through the offload (a real thread under eventlet,
    while the loop writes the overlays' frames). Whoever must not see an unconfirmed fact — the
    operator's state, the games' list, a control surface's values — calls `Sessions.durable()`,
    which waits for the confirmation under way, then returns without an fsync of its own."""
    import threading

    store = Store(tmp_path / "game.sqlite3", "FULL")
    sessions = Sessions(store, clock=lambda: 1_700_000_000_000, rng=random.Random(3))
    live = sessions.create(tv_spec())
    disk = threading.Event()
    synced: list[str] = []

    def offload(fn, *args):  # the disk confirms when the test says so
        synced.append(threading.current_thread().name)
        assert disk.wait(10)
        return fn(*args)

    store.sync_elsewhere(offload)
    command = threading.Thread(target=sessions.execute, args=(live.id, {"type": "spin", "landed": 3}),
                               name="command")
    command.start()
    wait_for(lambda: synced == ["command"], what="the command's fsync to start")
    assert not store.durable
    listed: list[list[dict]] = []
    reader_done = threading.Event()
    reader = threading.Thread(target=lambda: (listed.append(sessions.summary()), reader_done.set()), name="reader")
    reader.start()
    assert not reader_done.wait(0.3), "the games' list was read before the disk confirmed the spin"
    disk.set()
    command.join(10)
    assert reader_done.wait(10) and store.durable
    assert listed[0][0]["rev"] == 1
    assert synced == ["command"], "the reader made an fsync of its own"

