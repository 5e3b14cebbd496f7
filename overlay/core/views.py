"""What a game looks like from outside. `public_view` alone decides what is public."""
from __future__ import annotations

from typing import Any

from ..rules import club
from ..rules.state import Game


def _timer(game: Game, now: int) -> dict | None:
    t = game.timer
    if t is None:
        return None
    remaining = max(0, t.ends_at - now) if t.running else t.remaining_ms
    return {"kind": t.kind, "duration_ms": t.duration_ms, "remaining_ms": remaining,
            "running": t.running, "ends_at": t.ends_at, "server_now": now}


def _round(game: Game, public: bool, retired: bool = False) -> dict | None:
    r = game.round
    if r is None:
        return None
    q = game.current_question() or {}
    author = q.get("author")
    prize = q.get("prize")
    out = {
        "sector": r.sector, "landed": r.landed, "kind": r.kind, "phase": r.phase,
        "question": r.question, "questions": r.questions, "results": list(r.results),
        "early": r.early, "player": r.player, "extra_used": r.extra_used, "judged": r.judged,
        # The round has started, so its current question has been read out: its text is public.
        "text": q.get("text"),
        # An answer is public only once its question has its verdict.
        "answer": q.get("answer") if (r.judged or not public) else None,
        "comment": q.get("comment") if (r.judged or not public) else None,
        "media": list(q.get("media") or []),
        "author": dict(author) if author else None,
        "prize": dict(prize) if prize else None,
        "has_text": bool(q.get("text")),
        # The arrow stops at `reveal_at` (server epoch ms): graphics hold the sector and the card
        # until then; the table turns by `spin` from `spun_at`. None: revealed already.
        "spun_at": r.spun_at, "reveal_at": r.reveal_at,
        "spin": dict(game.spin) if r.reveal_at is not None else None,
    }
    if retired:  # RULES.md §6: the next holding plays the same questions
        out.update(text=None, answer=None, comment=None, media=[])
    if not public:
        out["accepted"] = list(q.get("accepted") or [])
        out["rejected"] = list(q.get("rejected") or [])
        out["source"] = q.get("source")
    if game.rules == "club":
        out["central_team"] = r.central_team
        out["club_correct"] = None if r.club_correct is None else list(r.club_correct)
    return out


def _view(game: Game, rev: int, now: int, public: bool, retired: bool = False) -> dict[str, Any]:
    view: dict[str, Any] = {
        "id": game.id, "rules": game.rules, "title": game.title, "rev": rev,
        "status": game.status, "target": game.target, "score": dict(game.score),
        "winner": game.winner,
        "sectors": [{"number": s.number, "kind": s.kind, "played": s.played, "result": s.result}
                    for s in game.sectors],
        "round": _round(game, public, retired),
        "timer": _timer(game, now),
        "extra_minutes": game.extra_minutes,
        "club_help": {"available": game.rules == "tv" and not game.club_help_used,
                      "used": game.club_help_used},
        "decisive": {"requested": game.decisive["requested"], "active": game.decisive["active"],
                     "players": list(game.decisive["players"]),
                     "before": dict(game.decisive["before"]) if game.decisive.get("before") else None},
        "prizes": [dict(p) for p in game.prizes],
        "server_now": now,
        **{k: v for k, v in game.meta.items()},
    }
    if game.rules == "tv":
        view["experts"] = dict(game.experts or {})
    else:
        view["teams"] = [{"id": t.id, "name": t.name, "players": list(t.players),
                          "lost_round": t.lost_round, "correct": t.correct,
                          "central_correct": t.central_correct,
                          "gain": t.correct + t.central_correct} for t in game.teams]
        view["central"] = {"team": game.central_team, "candidates": club.candidates(game),
                           "seated": list(game.seated), "left": game.left_team,
                           "players": club.central_players(game)}
        view["game_day"] = game.game_day
        view["best_player"] = game.best_player
    if not public:
        view["sectors"] = [
            {**sv, "questions": [dict(q) for q in s.questions]}
            for sv, s in zip(view["sectors"], game.sectors)
        ]
        view["timers"] = dict(game.timers)
    return view


def public_view(game: Game, rev: int, now: int, retired: bool = False) -> dict[str, Any]:
    """Exactly what overlays and the public API receive: no unplayed envelope's text, no answer
    before its verdict; `retired` (a finished game no longer on air): no question text at all."""
    return _view(game, rev, now, public=True, retired=retired)


def operator_view(game: Game, rev: int, now: int) -> dict[str, Any]:
    """Everything, questions and answers included: for authenticated operators only."""
    return _view(game, rev, now, public=False)
