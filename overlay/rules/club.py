"""The club game (RULES.md §5): the Central Table seat, club tables' answers, best player."""
from __future__ import annotations

from .commands import Command
from .context import Ctx
from .errors import InputError, RuleError
from .state import Game, Team


def reopened(game: Game) -> bool:
    """Teams that have lost a round may sit again: experts on target−1, or every team has lost."""
    return game.score["experts"] == game.target - 1 or all(t.lost_round for t in game.teams)


def eligible(game: Game) -> list[Team]:
    return [t for t in game.teams if not t.lost_round or reopened(game)]


def candidates(game: Game) -> list[str]:
    """Who may take the free seat: eligible teams that answered this question correctly, or,
    if none did, every eligible team; never the team that has just left it."""
    if game.central_team is not None:
        return []
    if game.left_team is not None and game.round is not None and game.round.club_correct is None:
        return []  # not known until the club tables' answers to this question are in
    pool = [t.id for t in eligible(game) if t.id != game.left_team]
    answered = game.round.club_correct if game.round else None
    good = [t for t in pool if answered and t in answered]
    return good or pool


def _why_not(game: Game, team: Team) -> tuple[str, str]:
    """(the developer's words, the catalog's reason)"""
    if team.id == game.left_team:
        return "it has just left the Central Table", "just_left"
    if team.lost_round and not reopened(game):
        return "it has already lost a round at the Central Table on this game day", "lost_today"
    return "other teams answered this question correctly", "others_correct"


def seat_team(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    if game.central_team is not None:
        raise RuleError("seat_taken", "A team already sits at the Central Table.")
    if game.left_team is not None and game.round and game.round.club_correct is None:
        raise RuleError("club_answers_missing",
                        "Enter which club tables answered this question correctly before seating the next team.")
    pool = candidates(game)
    team_id = cmd.get("team")
    if team_id is not None:
        team = game.team(team_id)
        if team is None:
            raise InputError("bad_field", f"No team with id {team_id!r} in this game.", reason="no_team")
        if team_id not in pool:
            why, reason = _why_not(game, team)
            raise RuleError("not_a_candidate", f"{team.name} cannot sit now: {why}.", reason=reason, team=team.name)
        return [{"type": "team_seated", "team": team_id, "drawn": False, "candidates": pool}]
    if not pool:
        raise RuleError("no_candidates", "No team may take the Central Table now.")
    chosen = pool[0] if len(pool) == 1 else ctx.draw(pool)
    return [{"type": "team_seated", "team": chosen, "drawn": len(pool) > 1, "candidates": pool}]


def club_answers(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    ids = list(dict.fromkeys(cmd.get("correct")))
    for team_id in ids:
        if game.team(team_id) is None:
            raise InputError("bad_field", f"No team with id {team_id!r} in this game.", reason="no_team")
    central = game.round.central_team if game.round else None
    if central in ids:
        raise RuleError("central_table_answers_aloud",
                        "The Central Table team answers aloud, not in writing: leave it out of the club tables' list.")
    return [{"type": "club_answers", "correct": ids}]


def best_player(game: Game, cmd: Command, ctx: Ctx) -> list[dict]:
    if game.status != "finished" or game.winner != "experts":
        raise RuleError("best_player_unavailable", "The best player is named only after the experts have won.")
    player = cmd.get("player")
    sat = central_players(game)
    if player not in sat:
        raise RuleError("not_at_central_table", f"{player!r} did not sit at the Central Table in this game.")
    return [{"type": "best_player", "player": player}]


def central_players(game: Game) -> list[str]:
    """Everyone who sat at the Central Table in this game, in seating order."""
    names: list[str] = []
    for team_id in game.seated:
        team = game.team(team_id)
        names += [p for p in (team.players if team else []) if p not in names]
    return names
