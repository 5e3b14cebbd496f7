"""Fold one recorded event into a game state. No checks here: `decide` made them."""
from __future__ import annotations

from collections.abc import Callable

from .state import Game, Round, Timer
from .table import QUESTIONS_PER_KIND


def _spun(g: Game, e: dict) -> None:
    kind = g.sector(e["sector"]).kind
    g.round = Round(sector=e["sector"], landed=e["landed"], kind=kind,
                    questions=QUESTIONS_PER_KIND[kind], central_team=g.central_team,
                    spun_at=e.get("spun_at"), reveal_at=e.get("reveal_at"))
    g.timer = None


def _timer_started(g: Game, e: dict) -> None:
    g.round.phase = "discussion"
    g.timer = Timer(e["kind"], e["duration_ms"], e["duration_ms"], True, e["ends_at"])


def _timer_paused(g: Game, e: dict) -> None:
    g.timer.running, g.timer.remaining_ms, g.timer.ends_at = False, e["remaining_ms"], None


def _timer_resumed(g: Game, e: dict) -> None:
    g.timer.running, g.timer.ends_at = True, e["ends_at"]


def _time_up(g: Game, e: dict) -> None:
    g.timer.running, g.timer.remaining_ms, g.timer.ends_at = False, 0, None
    g.round.phase = "answer"


def _early_answer(g: Game, e: dict) -> None:
    g.round.phase, g.round.early = "answer", True


def _extra_minute(g: Game, e: dict) -> None:
    g.extra_minutes -= 1
    g.round.extra_used = True
    d = e["duration_ms"]
    if e["mode"] == "start":
        g.round.phase = "discussion"
        g.timer = Timer("extra_minute", d, d, True, e["ends_at"])
    else:  # more time on the minute that is running (or paused)
        g.timer.duration_ms += d
        if g.timer.running:
            g.timer.ends_at += d
        else:
            g.timer.remaining_ms += d


def _club_help(g: Game, e: dict) -> None:
    g.club_help_used = True
    g.round.phase = "club_help"
    g.timer = Timer("club_help", e["duration_ms"], e["duration_ms"], True, e["ends_at"])


def _judged(g: Game, e: dict) -> None:
    g.round.results.append("correct" if e["correct"] else "incorrect")
    g.round.judged = True
    g.timer = None
    team = g.team(g.round.central_team or "")
    if team and e["correct"]:
        team.correct += 1
        team.central_correct += 1


def _next_question(g: Game, e: dict) -> None:
    g.round.question, g.round.phase, g.round.judged = e["question"], "reading", False


def _point(g: Game, e: dict) -> None:
    g.score[e["side"]] += 1


def _score_set(g: Game, e: dict) -> None:
    g.score = {"experts": e["experts"], "viewers": e["viewers"]}


def _round_closed(g: Game, e: dict) -> None:
    g.round.phase = "closed"
    sector = g.sector(g.round.sector)
    sector.played, sector.result = True, e["result"]
    g.timer = None


def _prize_won(g: Game, e: dict) -> None:
    g.prizes.append({k: e[k] for k in ("sector", "author", "amount", "currency")})


def _game_over(g: Game, e: dict) -> None:
    g.status, g.winner = "finished", e["winner"]


def _extra_minute_banked(g: Game, e: dict) -> None:
    g.extra_minutes += 1


def _player_chosen(g: Game, e: dict) -> None:
    g.round.player = e["player"]


def _decisive_requested(g: Game, e: dict) -> None:
    g.decisive["requested"] = True


def _decisive_decided(g: Game, e: dict) -> None:
    # the score the experts asked at (rule 1.8 then shows 0:0): the result tells the whole story
    g.decisive = {"requested": False, "active": e["granted"], "players": list(e["players"]),
                  "before": dict(g.score) if e["granted"] else None}


def _club_answers(g: Game, e: dict) -> None:
    for team_id in g.round.club_correct or []:  # a correction replaces the earlier list
        g.team(team_id).correct -= 1
    g.round.club_correct = list(e["correct"])
    for team_id in e["correct"]:
        g.team(team_id).correct += 1


def _team_seated(g: Game, e: dict) -> None:
    g.central_team, g.left_team = e["team"], None
    if e["team"] not in g.seated:
        g.seated.append(e["team"])


def _team_left(g: Game, e: dict) -> None:
    g.team(e["team"]).lost_round = True
    g.central_team, g.left_team = None, e["team"]


def _best_player(g: Game, e: dict) -> None:
    g.best_player = e["player"]


EVOLVE: dict[str, Callable[[Game, dict], None]] = {
    "spun": _spun, "timer_started": _timer_started, "timer_paused": _timer_paused,
    "timer_resumed": _timer_resumed, "time_up": _time_up, "early_answer": _early_answer,
    "extra_minute": _extra_minute, "club_help": _club_help, "judged": _judged,
    "next_question": _next_question, "point": _point, "score_set": _score_set,
    "round_closed": _round_closed, "prize_won": _prize_won, "game_over": _game_over,
    "extra_minute_banked": _extra_minute_banked, "player_chosen": _player_chosen,
    "decisive_requested": _decisive_requested, "decisive_decided": _decisive_decided,
    "club_answers": _club_answers, "team_seated": _team_seated, "team_left": _team_left,
    "best_player": _best_player,
}


def apply(game: Game, event: dict) -> None:
    """Fold `event` into `game` in place."""
    EVOLVE[event["type"]](game, event)
