"""The «Star Wars» series (RULES.md §4, seed 000 §2).

Qualifying duels: two teams, each plays its own game against the viewers, the better result
(standings.better) advances. Final series: the best result of all final games wins. Ties go to
the later game. The operator may override any duel or the final; the override is recorded with
its reason and takes effect once that scope's games are all finished (an override corrects a
decision, it does not replace playing).

Scopes are named "duel:1", "duel:2", … (1-based, in the order the duels are given) and "final".
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from .errors import InputError
from .standings import GameResult, margin, ranking

FINAL = "final"

Duel = tuple[GameResult, GameResult]


def duel_scope(number: int) -> str:
    """Scope name of the duel at 1-based position `number`."""
    return f"duel:{number}"


class Basis(StrEnum):
    PENDING = "pending"        # not every game of the scope is finished
    MARGIN = "margin"          # a strictly larger margin
    LATER_GAME = "later_game"  # equal best margin: the later game won (§4 ties)
    OVERRIDE = "override"      # the operator's recorded decision


@dataclass(frozen=True)
class Override:
    scope: str
    winner: str
    reason: str


@dataclass(frozen=True)
class Decision:
    scope: str
    winner: str | None
    basis: Basis
    reason: str | None = None  # the override's reason


@dataclass(frozen=True)
class SeriesOutcome:
    advancing: tuple[str, ...]       # winners of the decided duels, in duel order
    winner: str | None
    decided_by: dict[str, Decision]  # scope -> how it was (or was not yet) decided


def _decide(scope: str, games: Sequence[GameResult], override: Override | None) -> Decision:
    if not games or not all(g.finished for g in games):
        return Decision(scope, None, Basis.PENDING)
    if override is not None:
        return Decision(scope, override.winner, Basis.OVERRIDE, override.reason)
    best, *rest = ranking(games)
    tied = any(margin(g) == margin(best) for g in rest)
    return Decision(scope, best.team, Basis.LATER_GAME if tied else Basis.MARGIN)


def _check(duels: Sequence[Duel], final: Sequence[GameResult],
           overrides: Sequence[Override]) -> dict[str, Override]:
    scopes: dict[str, set[str]] = {}
    for number, duel in enumerate(duels, start=1):
        if len(duel) != 2:
            raise InputError("series.duel_size", f"duel {number} must have exactly two games")
        scopes[duel_scope(number)] = {g.team for g in duel}
    scopes[FINAL] = {g.team for g in final}

    duel_teams = [g.team for duel in duels for g in duel]
    if len(set(duel_teams)) != len(duel_teams):
        raise InputError("series.team_twice", "a team plays in at most one duel game", variant="duels")
    if len(scopes[FINAL]) != len(final):
        raise InputError("series.team_twice", "a team plays at most one final game", variant="final")
    game_ids = [g.game_id for duel in duels for g in duel] + [g.game_id for g in final]
    if len(set(game_ids)) != len(game_ids):
        raise InputError("series.game_twice", "a game belongs to one place in the series")

    by_scope: dict[str, Override] = {}
    for o in overrides:
        if o.scope not in scopes:
            raise InputError("series.override_scope", f"no such scope: {o.scope}", scope=o.scope)
        if o.winner not in scopes[o.scope]:
            raise InputError("series.override_winner", f"{o.winner} does not play in {o.scope}", team=o.winner, scope=o.scope)
        if not o.reason.strip():
            raise InputError("series.override_reason", "an override needs a reason")
        if o.scope in by_scope:
            raise InputError("series.override_twice", f"two overrides for {o.scope}")
        by_scope[o.scope] = o
    return by_scope


def series_outcome(duels: Sequence[Duel], final: Sequence[GameResult],
                   overrides: Sequence[Override] = ()) -> SeriesOutcome:
    by_scope = _check(duels, final, overrides)
    decided: dict[str, Decision] = {}
    for number, duel in enumerate(duels, start=1):
        scope = duel_scope(number)
        decided[scope] = _decide(scope, duel, by_scope.get(scope))
    decided[FINAL] = _decide(FINAL, final, by_scope.get(FINAL))
    advancing = tuple(d.winner for s, d in decided.items() if s != FINAL and d.winner is not None)
    return SeriesOutcome(advancing, decided[FINAL].winner, decided)
