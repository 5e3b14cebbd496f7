"""Comparing finished games by score (RULES.md §4, seed 000 §2).

A better score is a larger margin experts − viewers; on equal margins the game played later
wins. A finished game always has a winner (a side reached the target), so a win has a positive
margin and a loss a negative one: ordering by margin alone already puts every win above every
loss (6:1 > 6:3 > 5:6 > 3:6), no separate "won?" key is needed.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .errors import InputError, RuleError


@dataclass(frozen=True)
class GameResult:
    """One team's game against the viewers. `played_at` is an ordinal: larger = played later."""

    game_id: str
    team: str
    experts: int
    viewers: int
    played_at: int
    finished: bool = True

    def __post_init__(self) -> None:
        if self.experts < 0 or self.viewers < 0:
            raise InputError("standings.score", f"negative score in game {self.game_id}")
        if self.finished and self.experts == self.viewers:
            raise InputError("standings.finished_draw",
                             f"finished game {self.game_id} has no winner ({self.experts}:{self.viewers})")


def margin(r: GameResult) -> int:
    return r.experts - r.viewers


def won(r: GameResult) -> bool:
    return r.finished and r.experts > r.viewers


def sort_key(r: GameResult) -> tuple[int, int]:
    """Ascending key: a larger key is a better result (margin first, then the later game)."""
    return (margin(r), r.played_at)


def better(a: GameResult, b: GameResult) -> GameResult:
    """The better of two results by RULES §4. Equal margin and equal `played_at` cannot be
    decided by the rules (only the operator can): refused."""
    if a.game_id == b.game_id:
        return a
    ka, kb = sort_key(a), sort_key(b)
    if ka == kb:
        raise RuleError("standings.undecided_tie",
                        f"games {a.game_id} and {b.game_id} have the same margin and play order")
    return a if ka > kb else b


def ranking(results: Iterable[GameResult]) -> list[GameResult]:
    """Best first. Refuses two different games the rules cannot order."""
    ranked = sorted(results, key=sort_key, reverse=True)
    for x, y in zip(ranked, ranked[1:]):
        if x.game_id != y.game_id and sort_key(x) == sort_key(y):
            better(x, y)  # raises the undecided-tie error
    return ranked
