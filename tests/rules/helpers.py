"""A pure game driven by hand: a fake clock and a scripted top."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from overlay.rules import Ctx, RuleError, apply_all, decide, new_game, parse_command, parse_spec
from overlay.rules.commands import Command


class Play:
    def __init__(self, **spec: Any) -> None:
        spec.setdefault("rules", "tv")
        self.game = new_game("g1", parse_spec(spec))
        self.now = 1_000_000
        self.draws: list[Any] = []  # what the top will land on next; empty = first option
        self.log: list[dict] = []   # every event recorded, for replays

    def draw(self, options: Sequence[Any]) -> Any:
        return self.draws.pop(0) if self.draws else options[0]

    def do(self, kind: str, **fields: Any) -> list[dict]:
        events = decide(self.game, parse_command({"type": kind, **fields}), Ctx(self.now, self.draw))
        self.game = apply_all(self.game, events)
        self.log += events
        return events

    def refused(self, kind: str, **fields: Any) -> str:
        before = self.game
        with pytest.raises(RuleError) as info:
            self.do(kind, **fields)
        assert self.game is before
        return info.value.code

    def wait(self, ms: int) -> None:
        self.now += ms

    def time_up(self) -> list[dict]:
        self.now = self.game.timer.ends_at
        events = decide(self.game, Command("time_up"), Ctx(self.now, self.draw))
        self.game = apply_all(self.game, events)
        self.log += events
        return events

    def round(self, sector: int, correct: bool) -> None:
        """Spin onto `sector`, run the minute out, give the verdict."""
        self.do("spin", landed=sector)
        self.do("start_timer")
        self.time_up()
        self.do("judge", correct=correct)

    @property
    def score(self) -> tuple[int, int]:
        return self.game.score["experts"], self.game.score["viewers"]
