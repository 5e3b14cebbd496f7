"""The league as the on-air graphics see it: names, points, places, scores and winners.
Nothing else leaves through here — no member ids or statuses, no reasons, no fees, and never a
question (the games are summarized by team, score and status only)."""
from __future__ import annotations

from typing import Any

from ..rules.errors import InputError
from .results import Results
from .seasons import Seasons
from .series import SeriesBook

MAX_TOP = 100


def season(seasons: Seasons, results: Results, season_id: Any, top: int | None = None) -> dict:
    s = seasons.get(season_id)
    rating = results.rating(s["id"])["rating"]
    try:
        ft = results.final_teams(s["id"])
        final_teams = {"central_table": [m["player"] for m in ft["central_table"]],
                       "club": [m["player"] for m in ft["club"]],
                       "provisional": bool(ft["pending"]) or ft["free_places"] > 0}
    except InputError:
        final_teams = None  # a recorded choice no longer fits: the administration sees why
    final = results.final(s["id"])
    awards = results.awards(s["id"])
    return {
        "season": {"id": s["id"], "name": s["name"], "qualifying_days": s["qualifying_days"]},
        "rating": [{"place": r["place"], "player": r["player"], "points": r["points"], "games": r["games"]}
                   for r in rating[:top or MAX_TOP]],
        "best_players": [{"player": b["player"], "times": b["times"]} for b in results.best(s["id"])["best_players"]],
        "final_teams": final_teams,
        "final": {"winner": final["winner"],
                  # who played the Final (the game's line-up), which may differ from the proposal
                  "games": [{"final_team": g["final_team"], "team": g["team"], "players": g["players"],
                             "score": g["score"], "status": g["status"]} for g in final["games"]]},
        "awards": {"team": awards["team"], "winners": [w["player"] for w in awards["winners"]],
                   "crystal_sphinx": (awards["crystal_sphinx"] or {}).get("player")},
    }


def series(book: SeriesBook, series_id: Any) -> dict:
    s = book.get(series_id)

    def scope(x: dict) -> dict:
        return {"scope": x["scope"], "winner": x["winner"],
                "games": [{"team": g["team"], "score": g["score"], "status": g["status"]} for g in x["games"]]}

    return {"id": s["id"], "name": s["name"], "advancing": s["advancing"], "winner": s["winner"],
            "duels": [scope(d) for d in s["duels"]], "final": scope(s["final"])}
