"""Which command may be played when: a table of moves, as h11 writes its protocol.

`decide` looks the command up in MOVES, applies the checks every move shares (rule set, game
over, phase) and then the move's own handler, which returns events or raises a RuleError.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from . import club, tv
from .commands import Command
from .context import Ctx
from .errors import InputError, RuleError
from .evolve import apply
from .state import Game

BOTH = frozenset({"tv", "club"})
TV = frozenset({"tv"})
CLUB = frozenset({"club"})
NO_ROUND = frozenset({None, "closed"})
ANY_PHASE = frozenset({None, "reading", "discussion", "answer", "club_help", "closed"})


Handler = Callable[[Game, Command, Ctx], list[dict]]


@dataclass(frozen=True)
class Move:
    handler: Handler
    rules: frozenset[str]
    phases: frozenset[str | None]
    after_end: bool = False  # still accepted once the game is over


MOVES: dict[str, Move] = {
    "spin": Move(tv.spin, BOTH, NO_ROUND),
    "start_timer": Move(tv.start_timer, BOTH, frozenset({"reading"})),
    "pause_timer": Move(tv.pause_timer, BOTH, frozenset({"discussion", "club_help"})),
    "resume_timer": Move(tv.resume_timer, BOTH, frozenset({"discussion", "club_help"})),
    "time_up": Move(tv.time_up, BOTH, frozenset({"discussion", "club_help"})),
    "early_answer": Move(tv.early_answer, TV, frozenset({"reading"})),
    "extra_minute": Move(tv.extra_minute, TV, frozenset({"discussion", "answer"})),
    "club_help": Move(tv.club_help, TV, frozenset({"answer"})),
    "judge": Move(tv.judge, BOTH, frozenset({"discussion", "answer", "club_help"})),
    "choose_player": Move(tv.choose_player, BOTH, frozenset({"reading"})),
    "request_decisive_round": Move(tv.request_decisive_round, TV, NO_ROUND),
    "decide_decisive_round": Move(tv.decide_decisive_round, TV, NO_ROUND),
    "club_answers": Move(club.club_answers, CLUB, ANY_PHASE - {None}, after_end=True),
    "seat_team": Move(club.seat_team, CLUB, NO_ROUND),
    "best_player": Move(club.best_player, CLUB, ANY_PHASE, after_end=True),
}

_PHASE_WORDS = {
    None: "no round has started yet",
    "reading": "the question is being read",
    "discussion": "the minute is running",
    "answer": "the team is answering",
    "club_help": "the club is helping",
    "closed": "the round is over",
}


def _phase_error(game: Game, move: Move, kind: str) -> RuleError:
    phase = game.phase
    if game.in_round and move.phases <= NO_ROUND:
        return RuleError("round_in_progress",
                         f"Not now: a round is in progress ({_PHASE_WORDS[phase]}). Give the verdict first.",
                         reason="round_in_progress", phase=phase or "none")
    if not game.in_round and phase not in move.phases:
        return RuleError("no_round", f"Not now: {_PHASE_WORDS[phase]}. Spin the top first.",
                         reason="no_round" if phase else "no_round_yet")
    return RuleError("wrong_phase", f"'{kind}' is not possible now: {_PHASE_WORDS[phase]}.",
                     reason="wrong_phase", phase=phase or "none", command=kind)


def decide(game: Game, command: Command, ctx: Ctx) -> list[dict]:
    """The events `command` causes in `game`, or a RuleError naming the rule that forbids it."""
    move = MOVES[command.type]
    if game.rules not in move.rules:
        only = "the TV rules" if move.rules == TV else "the club game"
        raise RuleError(f"{'tv' if move.rules == TV else 'club'}_only",
                        f"'{command.type}' exists only under {only}; this game is played under '{game.rules}'.",
                        command=command.type)
    if game.status == "finished" and not move.after_end:
        raise RuleError("game_over", "The game is over: only undo is possible.", reason="game_over")
    if game.phase not in move.phases:
        raise _phase_error(game, move, command.type)
    return move.handler(game, command, ctx)


def apply_all(game: Game, events: Iterable[dict]) -> Game:
    """A new state: `game` with `events` folded in (the argument is left untouched)."""
    # No event changes the questions: share them instead of copying them on every command.
    new = copy.deepcopy(game, {id(s.questions): s.questions for s in game.sectors})
    for event in events:
        apply(new, event)
    return new


def replay(game: Game, events: Iterable[dict]) -> Game:
    """Fold `events` into `game` in place (used when loading a game from its log)."""
    for event in events:
        apply(game, event)
    return game


def _probe(game: Game, kind: str) -> dict:
    """A representative body for `kind`: enough to ask the rules whether it may be played now."""
    if kind == "judge":
        return {"correct": True}
    if kind == "decide_decisive_round":
        return {"granted": False}
    if kind == "club_answers":
        return {"correct": []}
    if kind in ("choose_player", "best_player"):
        names = tv.eligible_players(game) if kind == "choose_player" else club.central_players(game)
        return {"player": names[0] if names else "?"}
    return {}


def allowed_moves(game: Game, now: int) -> dict[str, dict]:
    """For each command of the vocabulary: may it be played now, and if not, why (code, message).
    Nothing is recorded; the panel shows these reasons on its disabled buttons."""
    from .commands import VOCABULARY

    moves: dict[str, dict] = {}
    for kind in VOCABULARY:
        try:
            decide(game, Command(kind, _probe(game, kind)), Ctx(now, lambda options: options[0]))
            moves[kind] = {"ok": True}
        except InputError as exc:
            moves[kind] = {"ok": False, **exc.as_json()}
    return moves
