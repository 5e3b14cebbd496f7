"""The game, pure: no Flask, no sockets, no files, no clock, no randomness.

`decide(game, command, ctx)` checks a command against the rules and returns the events it
causes (every random outcome already drawn through `ctx.draw`); `apply(game, event)` folds one
event into the state. Replaying a game's events over `new_game(spec)` rebuilds it exactly.
"""
from .commands import Command, parse_command
from .errors import InputError, RuleError
from .evolve import apply
from .game import Ctx, apply_all, decide, replay
from .spec import parse_spec
from .state import Game, new_game

__all__ = [
    "Command", "Ctx", "Game", "InputError", "RuleError",
    "apply", "apply_all", "decide", "new_game", "parse_command", "parse_spec", "replay",
]
