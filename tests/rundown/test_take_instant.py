"""One instant per take: the layer's `shown_at` and the journal's time (the as-run log's row) are
the same reading of the clock, whatever the clock does between two readings."""
from __future__ import annotations

import random

from overlay.core.session import Sessions
from overlay.core.store import Store
from overlay.graphics.game import Graphics
from overlay.rundown import model
from overlay.rundown.desk import Rundowns


class Ticking:
    """A clock that moves 1 ms at every reading: two readings never agree."""

    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        self.now += 1
        return self.now


def test_a_take_and_its_journal_row_share_one_instant(tmp_path) -> None:
    sessions = Sessions(Store(tmp_path / "game.sqlite3", "OFF"), clock=Ticking(), rng=random.Random(1))
    graphics = Graphics(sessions)
    desk = Rundowns(sessions, graphics)
    rid = desk.create({"name": "Шоу"})["id"]
    fields = model.parse_item({"layer": "straps", "out": 3000, "label": "Ведущий", "graphic": "lower-third",
                               "data": {"title": "Борис"}}, desk.names)
    made: dict = {}

    def add(doc: dict) -> dict:
        new, item = model.add_item(doc, fields)
        made.update(item)
        return new
    desk.edit(rid, {}, add, {"action": "add_item"})

    desk.act(rid, {"action": "take", "item": made["id"]})
    taken = graphics.layers["straps"]
    row = next(j for j in sessions.store.journal(None, 50)
               if j["kind"] == "graphics" and j["body"].get("action") == "rundown_take")
    assert row["at"] == taken["shown_at"] == taken["expires_at"] - 3000
