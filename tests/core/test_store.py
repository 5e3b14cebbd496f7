"""The store on real SQLite files: checkpoints moved out of the commits."""
from __future__ import annotations

import threading
import time
from pathlib import Path

from overlay.core.store import Store

EVENT = [{"type": "spin", "landed": 3, "note": "x" * 150}]


def _append(store: Store, game: str, n: int, pause: float = 0.0) -> None:
    for i in range(n):
        store.append(game, EVENT, at=i, auto=False, rev=i + 1, journal_kind="command", journal_body={"i": i})
        if pause:
            time.sleep(pause)


def test_sqlite_checkpoints_inside_a_commit_by_default(tmp_path: Path) -> None:
    """The control: without `checkpoint_elsewhere`, some commit copies the WAL into the main file."""
    store = Store(tmp_path / "a.sqlite3")
    game = store.create_game({"rules": "tv"}, 0)
    size = (tmp_path / "a.sqlite3").stat().st_size
    _append(store, game, 300)  # ~1500 WAL pages: past SQLite's 1000
    assert (tmp_path / "a.sqlite3").stat().st_size > size
    store.close()


def test_commits_leave_the_checkpoint_to_whoever_is_started(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    started: list = []
    store.checkpoint_elsewhere(started.append, every=64)
    game = store.create_game({"rules": "tv"}, 0)
    size = (tmp_path / "a.sqlite3").stat().st_size
    _append(store, game, 300)
    assert (tmp_path / "a.sqlite3").stat().st_size == size  # no commit wrote the main file
    assert len(started) == 1  # one at a time: the next waits until this one has run
    started[0]()
    assert store.checkpoints == 1
    assert (tmp_path / "a.sqlite3").stat().st_size > size  # the checkpoint wrote it
    _append(store, game, 64)
    assert len(started) == 2
    store.close()
    again = Store(tmp_path / "a.sqlite3")
    assert len(again.log(game)) == 364
    again.close()


def test_checkpoints_in_a_thread_keep_every_commit(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")
    store.checkpoint_elsewhere(lambda fn: threading.Thread(target=fn, daemon=True).start(), every=16)
    game = store.create_game({"rules": "tv"}, 0)
    _append(store, game, 100, pause=0.002)
    deadline = time.monotonic() + 60
    while store._checkpointing and time.monotonic() < deadline:
        time.sleep(0.01)
    assert store.checkpoints >= 1
    assert len(store.log(game)) == 100
    store.close()
    again = Store(tmp_path / "a.sqlite3")
    assert [e["seq"] for e in again.log(game)] == list(range(1, 101))
    again.close()


def test_a_failing_start_does_not_fail_the_commit(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.sqlite3")

    def broken(fn: object) -> None:
        raise RuntimeError("no thread for you")

    store.checkpoint_elsewhere(broken, every=1)
    game = store.create_game({"rules": "tv"}, 0)
    _append(store, game, 3)
    assert len(store.log(game)) == 3
    store.close()
