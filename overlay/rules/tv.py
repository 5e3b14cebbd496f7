"""The round and the options of the TV rules (RULES.md §2–§3). Handlers return events.

Phase and rule-set checks are done by the MOVES table in game.py before a handler runs;
a handler checks only what is particular to its move.
"""
from __future__ import annotations

from .commands import Command
from .context import Ctx
from .errors import InputError, RuleError
from .spec import DEFAULT_SPIN
from .state import Game
from .table import MULTI_KINDS, next_unplayed


# The top's default timings (ms), spec.DEFAULT_SPIN; a game may have its own (`Game.spin`). The
# table graphic animates with the game's numbers (from the state), so the arrow stops at
# `reveal_at` on every screen.
SPIN_MS = DEFAULT_SPIN


def reveal_at(spun_at: int, landed: int, sector: int, sectors: int, spin: dict[str, int] = SPIN_MS) -> int:
    """Server epoch ms when the arrow stops on `sector`: the moment the round may be shown."""
    steps = (sector - landed) % sectors
    walk = spin["rest"] + steps * spin["step"] if steps else 0
    return spun_at + spin["turn"] + walk


def _single(game: Game) -> bool:
    return game.round is not None and game.round.kind not in MULTI_KINDS


def spin(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    if game.decisive["requested"]:
        raise RuleError("decisive_round_pending",
                        "The experts asked for the decisive round: the host must grant or refuse it first.",
                        reason="decisive_waits")
    if game.rules == "club" and game.central_team is None:
        raise RuleError("central_table_empty", "Seat a team at the Central Table before the spin.",
                        reason="central_empty")
    played = [s.played for s in game.sectors]
    if all(played):
        raise RuleError("table_exhausted", "Every sector has been played: there is nothing left to spin for.",
                        reason="table_exhausted")
    n = len(game.sectors)
    landed = cmd.get("landed")
    if landed is not None and not 1 <= landed <= n:
        raise InputError("bad_field", f"'landed' must be a sector from 1 to {n}, got {landed}.",
                         reason="bad_sector", n=n)
    drawn = landed is None
    if drawn:
        landed = ctx.draw(range(1, n + 1))
    sector = next_unplayed(played, landed)
    assert sector is not None
    return [{"type": "spun", "landed": landed, "sector": sector, "drawn": drawn,
             "spun_at": ctx.now, "reveal_at": reveal_at(ctx.now, landed, sector, n, game.spin)}]


def start_timer(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    rnd = game.round
    assert rnd is not None
    if rnd.kind == "superblitz" and rnd.player is None:
        raise RuleError("player_not_chosen", "Superblitz: the captain must name the player before the first question.",
                        reason="player_not_chosen")
    kind = "minute" if _single(game) else "blitz"
    duration = game.timers[kind]
    return [{"type": "timer_started", "kind": kind, "duration_ms": duration, "ends_at": ctx.now + duration}]


def pause_timer(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    if game.timer is None or not game.timer.running:
        raise RuleError("timer_not_running", "No timer is running.", reason="timer_not_running")
    return [{"type": "timer_paused", "remaining_ms": max(0, game.timer.ends_at - ctx.now)}]


def resume_timer(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    if game.timer is None or game.timer.running or game.timer.remaining_ms <= 0:
        raise RuleError("timer_not_paused", "No timer is paused.", reason="timer_not_paused")
    return [{"type": "timer_resumed", "ends_at": ctx.now + game.timer.remaining_ms}]


def time_up(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    """Internal: the server's clock says the running timer has run out."""
    timer = game.timer
    if timer is None or not timer.running or ctx.now < timer.ends_at:
        raise RuleError("timer_not_expired", "The timer has not run out.")
    return [{"type": "time_up", "kind": timer.kind}]


def early_answer(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    if not _single(game):
        raise RuleError("early_answer_unavailable", "An early answer is possible only in a single-question round.",
                        reason="multi_question")
    return [{"type": "early_answer"}]


def extra_minute(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    rnd = game.round
    assert rnd is not None
    why: tuple[str, str] | None = None  # (the developer's words, the catalog's reason)
    if not _single(game):
        why = "only in a single-question round", "multi_question"
    elif game.decisive["active"]:
        why = "not in the decisive round", "decisive_active"
    elif rnd.judged:
        why = "the verdict is already given", "judged"
    elif rnd.extra_used:
        why = "at most one per question", "extra_used"
    elif game.extra_minutes < 1:
        why = "the experts have no extra minute banked (it is won by a correct early answer)", "no_extra_minute"
    if why:
        raise RuleError("extra_minute_unavailable", f"No extra minute: {why[0]}.", reason=why[1])
    duration = game.timers["extra_minute"]
    if rnd.phase == "answer":
        return [{"type": "extra_minute", "mode": "start", "duration_ms": duration, "ends_at": ctx.now + duration}]
    return [{"type": "extra_minute", "mode": "extend", "duration_ms": duration}]


def club_help(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    why: tuple[str, str] | None = None  # (the developer's words, the catalog's reason)
    if not _single(game):
        why = "only in a single-question round", "multi_question"
    elif game.decisive["active"]:
        why = "not in the decisive round", "decisive_active"
    elif game.club_help_used:
        why = "it has been used in this game already", "club_help_used"
    elif game.score["experts"] >= game.score["viewers"]:
        why = "only while the experts are behind in the score", "not_behind"
    if why:
        raise RuleError("club_help_unavailable", f"No club help: {why[0]}.", reason=why[1])
    duration = game.timers["club_help"]
    return [{"type": "club_help", "duration_ms": duration, "ends_at": ctx.now + duration}]


def judge(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    rnd = game.round
    assert rnd is not None
    correct: bool = cmd.get("correct")
    events: list[dict] = [{"type": "judged", "correct": correct, "question": rnd.question}]
    if correct and rnd.question < rnd.questions - 1:
        return events + [{"type": "next_question", "question": rnd.question + 1}]
    winner = "experts" if correct else "viewers"
    loser = "viewers" if correct else "experts"
    if correct and rnd.early:
        events.append({"type": "extra_minute_banked"})
    if not correct:
        question = game.current_question() or {}
        if question.get("author") or question.get("prize"):
            prize = question.get("prize") or {}
            events.append({"type": "prize_won", "sector": rnd.sector, "author": question.get("author"),
                           "amount": prize.get("amount"), "currency": prize.get("currency")})
        if game.rules == "club" and rnd.central_team:
            events.append({"type": "team_left", "team": rnd.central_team})
    if game.decisive["active"]:
        score = {winner: game.target, loser: 0}
        events.append({"type": "score_set", **score})
    else:
        score = dict(game.score)
        score[winner] += 1
        events.append({"type": "point", "side": winner})
    events.append({"type": "round_closed", "result": winner})
    if score[winner] >= game.target:
        events.append({"type": "game_over", "winner": winner})
    return events


def eligible_players(game: Game) -> list[str]:
    if game.decisive["active"]:
        return list(game.decisive["players"])
    if game.rules == "club":
        team = game.team(game.central_team or "")
        return list(team.players) if team else []
    return list((game.experts or {}).get("players") or [])


def choose_player(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    rnd = game.round
    assert rnd is not None
    if rnd.kind != "superblitz":
        raise RuleError("not_superblitz", "Only a superblitz round has one named player.", reason="not_superblitz")
    if rnd.question != 0 or game.timer is not None:
        raise RuleError("player_choice_closed", "The player is named before the first superblitz question.",
                        reason="player_choice_closed")
    player = cmd.get("player")
    allowed = eligible_players(game)
    if allowed and player not in allowed:
        raise RuleError("unknown_player", f"{player!r} is not at the table. Choose one of: {', '.join(allowed)}.",
                        reason="unknown_player", player=player)
    return [{"type": "player_chosen", "player": player}]


def request_decisive_round(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    why: tuple[str, str] | None = None  # (the developer's words, the catalog's reason)
    if game.decisive["active"]:
        why = "it is already being played", "decisive_running"
    elif game.decisive["requested"]:
        why = "the request already waits for the host", "decisive_waits"
    elif game.score["experts"] != game.target - 1:
        why = f"the experts may ask only with exactly {game.target - 1} points", "decisive_score"
    if why:
        raise RuleError("decisive_round_unavailable", f"No decisive round: {why[0]}.", reason=why[1], n=game.target - 1)
    return [{"type": "decisive_requested"}]


def decide_decisive_round(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    if not game.decisive["requested"]:
        raise RuleError("no_decisive_request", "The experts have not asked for the decisive round.",
                        reason="no_decisive_request")
    if not cmd.get("granted"):
        return [{"type": "decisive_decided", "granted": False, "players": []}]
    players = cmd.get("players") or []
    if len(players) != 3 or len(set(players)) != 3:
        raise RuleError("decisive_players", "Name exactly three different experts who stay at the table.",
                        reason="three_players")
    known = (game.experts or {}).get("players") or []
    strangers = [p for p in players if known and p not in known]
    if strangers:
        raise RuleError("unknown_player", f"{strangers[0]!r} is not in the team. Players: {', '.join(known)}.",
                        reason="unknown_player", player=strangers[0])
    return [{"type": "decisive_decided", "granted": True, "players": players},
            {"type": "score_set", "experts": 0, "viewers": 0}]
