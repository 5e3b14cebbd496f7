"""`Graphics.timed()`: what the server's clock reads to know it must tick (overlay/core/clock.Pace).
True exactly while a graphic or a layer will go out by itself; every change that makes it so is
told to the sessions' listeners (the clock's wake-up) when it is committed."""
from __future__ import annotations

import random

from overlay.core.session import Sessions
from overlay.core.store import Store
from overlay.graphics.game import Graphics
from overlay.rundown import model
from overlay.rundown.desk import Rundowns


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000_000

    def __call__(self) -> int:
        return self.now


def world(tmp_path) -> tuple[Graphics, Clock, list]:
    clock = Clock()
    sessions = Sessions(Store(tmp_path / "game.sqlite3", "OFF"), clock=clock, rng=random.Random(1))
    told: list = []
    sessions.subscribe(told.append)
    return Graphics(sessions), clock, told


def test_a_graphic_with_a_duration_is_timed_until_it_has_gone(tmp_path) -> None:
    graphics, clock, told = world(tmp_path)
    assert not graphics.timed()
    graphics.apply({"action": "show", "graphic": "scoreboard"})  # stays until taken out
    assert not graphics.timed() and len(told) == 1
    graphics.apply({"action": "show", "graphic": "lower-third", "data": {"title": "Анна", "duration_ms": 600}})
    assert graphics.timed() and len(told) == 2
    clock.now += 599
    graphics.expire()
    assert graphics.timed()
    clock.now += 1
    graphics.expire()
    assert not graphics.timed() and "lower-third" not in graphics.shown and "scoreboard" in graphics.shown


def test_a_layer_with_an_automatic_out_is_timed(tmp_path) -> None:
    graphics, clock, told = world(tmp_path)
    desk = Rundowns(graphics.sessions, graphics)
    rid = desk.create({"name": "Шоу"})["id"]
    made: dict = {}
    for label, out in (("Ведущий", "manual"), ("Гость", 3000)):
        fields = model.parse_item({"layer": "straps" if out == "manual" else "bug", "out": out, "label": label,
                                   "graphic": "lower-third", "data": {"title": label}}, desk.names)

        def add(doc: dict, fields: dict = fields, label: str = label) -> dict:
            new, item = model.add_item(doc, fields)
            made[label] = item["id"]
            return new
        desk.edit(rid, {}, add, {"action": "add_item"})
    before = len(told)
    desk.act(rid, {"action": "take", "item": made["Ведущий"]})
    assert not graphics.timed() and len(told) > before
    before = len(told)
    desk.act(rid, {"action": "take", "item": made["Гость"]})
    assert graphics.timed() and len(told) > before
    clock.now += 3000
    graphics.expire()
    assert not graphics.timed() and list(graphics.layers) == ["straps"]
