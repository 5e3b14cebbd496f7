"""One game's public state at any instant, from its recorded log: the state after every batch
recorded at or before `t`, viewed at `t` (the view's timer counts from server time, as live).

The log is the game as it stands: a command that was undone was dropped from it with its events
(Store.drop_from), so a render draws the game without it (the as-run log still lists it, from
the journal)."""
from __future__ import annotations

import bisect
from dataclasses import dataclass

from ..core.views import public_view
from ..rules import Game, apply_all, new_game
from .journal import GameRecord


@dataclass
class Point:
    at: int
    rev: int
    game: Game
    events: list[dict]
    auto: bool


class Timeline:
    def __init__(self, record: GameRecord, now: int) -> None:
        self.record = record
        game = new_game(record.id, record.spec)
        self.points: list[Point] = [Point(record.created_at, 0, game, [], False)]
        batch: list[dict] = []
        for i, row in enumerate(record.log):
            batch.append(row)
            if i + 1 < len(record.log) and record.log[i + 1]["batch"] == row["batch"]:
                continue
            game = apply_all(game, [r["event"] for r in batch])
            self.points.append(Point(max(row["at"], self.points[-1].at), len(self.points), game,
                                     [r["event"] for r in batch], row["auto"]))
            batch = []
        self.ats = [p.at for p in self.points]
        self.start = record.created_at
        last = self.points[-1]
        # a finished game ends with its last recorded event; a running one goes on until now (its
        # timer's time-up, if it is due, is the server's to record)
        self.end = last.at if last.game.status == "finished" else max(last.at, now)

    def point_at(self, t: float) -> Point:
        return self.points[max(0, bisect.bisect_right(self.ats, t) - 1)]

    def changes_between(self, a: float, b: float) -> list[Point]:
        """The points recorded in (a, b]."""
        return self.points[bisect.bisect_right(self.ats, a):bisect.bisect_right(self.ats, b)]

    def public_at(self, t: float, point: Point | None = None) -> dict:
        """What an overlay had at `t`: the view of the state then (on air: question texts shown)."""
        p = point or self.point_at(t)
        view = public_view(p.game, p.rev, int(p.at if point is not None else t))
        view["epoch"] = 0
        return view
