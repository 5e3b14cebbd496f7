"""The «Star Wars» series (seed 000 §2, RULES.md §4): duels of celebrity teams, each team
playing its own tv game, then a final series. The outcome is `overlay.rules.series`, computed
from the live games every time: team = the game's experts' name, played_at = the finish order.
An operator override is a recorded action with its reason; a later one for the same scope
replaces it (both stay in the log), `winner: null` withdraws it."""
from __future__ import annotations

import json
from typing import Any

from ..rules.errors import InputError
from ..rules.series import FINAL, Override, duel_scope, series_outcome
from ..rules.standings import GameResult
from ..rules.state import Game
from . import check
from .core import Core
from .finish import FinishOrder
from .schema import select

MAX_DUELS = 32


class SeriesBook:
    def __init__(self, core: Core, finish: FinishOrder) -> None:
        self.core, self.finish = core, finish

    # reading ---------------------------------------------------------------------------------

    def _row(self, series_id: Any) -> dict:
        rows = select(self.core.store, "id, name, duels, final, created_at", "FROM league_series WHERE id=?",
                      (series_id,)) if isinstance(series_id, str) else []
        if not rows:
            raise check.NotFound("unknown_series", f"There is no series {series_id!r}. GET /api/series lists them.",
                                 series=series_id)
        row = rows[0]
        row["duels"], row["final"] = json.loads(row["duels"]), json.loads(row["final"])
        return row

    def all(self) -> list[dict]:
        return [{"id": r["id"], "name": r["name"]}
                for r in select(self.core.store, "id, name", "FROM league_series ORDER BY n")]

    def overrides(self, series_id: str) -> tuple[list[dict], dict[str, dict]]:
        """(every override in order, the one in force per scope)."""
        rows = select(self.core.store, "id, scope, winner, reason, at",
                      "FROM league_series_overrides WHERE series_id=? ORDER BY id", (series_id,))
        current: dict[str, dict] = {}
        for r in rows:
            if r["winner"] is None:
                current.pop(r["scope"], None)
            else:
                current[r["scope"]] = r
        return rows, current

    def _game(self, game_id: str, where: str) -> Game:
        live = self.core.sessions.games.get(game_id)
        if live is None:
            raise InputError("unknown_game", f"{where}: there is no game {game_id!r}. GET /api/games lists the games.",
                             game=game_id)
        if live.game.rules != "tv":
            raise check.rule("not_tv", f"{where}: game {game_id} is a club game; the series is played under the TV rules.",
                             game=game_id)
        return live.game

    def _result(self, game: Game, order: dict[str, int]) -> GameResult:
        return GameResult(game.id, (game.experts or {}).get("name") or game.id, game.score["experts"],
                          game.score["viewers"], order.get(game.id, 0), game.status == "finished")

    def _outcome(self, duels: list[list[str]], final: list[str], overrides: dict[str, dict]):  # noqa: ANN202
        order = self.finish.order()
        games = {g: self._game(g, "game") for g in [x for d in duels for x in d] + final}
        results = {g: self._result(game, order) for g, game in games.items()}
        outcome = series_outcome([(results[a], results[b]) for a, b in duels], [results[g] for g in final],
                                 [Override(o["scope"], o["winner"], o["reason"]) for o in overrides.values()])
        return outcome, results

    def get(self, series_id: Any) -> dict:
        row = self._row(series_id)
        history, current = self.overrides(row["id"])
        outcome, results = self._outcome(row["duels"], row["final"], current)

        def game_json(g: str) -> dict:
            r = results[g]
            return {"game": g, "team": r.team, "score": {"experts": r.experts, "viewers": r.viewers},
                    "margin": r.experts - r.viewers, "status": "finished" if r.finished else "playing",
                    "played_at": r.played_at if r.finished else None}

        def scope_json(scope: str, games: list[str]) -> dict:
            d = outcome.decided_by[scope]
            return {"scope": scope, "games": [game_json(g) for g in games], "winner": d.winner,
                    "basis": str(d.basis), "reason": d.reason}

        return {
            "id": row["id"], "name": row["name"],
            "advancing": list(outcome.advancing), "winner": outcome.winner,
            "duels": [scope_json(duel_scope(i), pair) for i, pair in enumerate(row["duels"], start=1)],
            "final": scope_json(FINAL, row["final"]),
            "overrides": [{"scope": o["scope"], "winner": o["winner"], "reason": o["reason"], "at": o["at"]}
                          for o in history],
        }

    # changing --------------------------------------------------------------------------------

    def _check_final(self, duels: list[list[str]], final: list[str], current: dict[str, dict]) -> None:
        outcome, results = self._outcome(duels, final, current)
        duel_teams = {results[g].team for d in duels for g in d}
        decided = all(outcome.decided_by[duel_scope(i)].winner for i in range(1, len(duels) + 1))
        for g in final:
            team = results[g].team
            if team not in duel_teams:
                raise check.rule("not_in_duels", f"final game {g}: {team!r} played no duel of this series.", game=g, team=team)
            if decided and team not in outcome.advancing:
                raise check.rule("not_advancing", f"final game {g}: {team!r} did not advance from its duel.", game=g, team=team)

    def create(self, body: Any) -> dict:
        body = check.obj(body, {"name", "duels", "final"}, {"name", "duels"})
        name = check.text(body["name"], "name")
        raw = body["duels"]
        if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_DUELS:
            raise check.bad("duels", f"must be a list of 1 to {MAX_DUELS} pairs of game ids", "duels", hi=MAX_DUELS)
        duels = [check.game_ids(d, f"duels[{i}]", lo=2, hi=2) for i, d in enumerate(raw)]
        final = check.game_ids(body.get("final", []), "final", lo=0, hi=2 * MAX_DUELS)
        self._check_final(duels, final, {})  # unknown games, club games, a team or game twice: refused here
        core = self.core
        with core.store.transaction() as db:
            n = db.execute("SELECT COALESCE(MAX(n), 0) + 1 FROM league_series").fetchone()[0]
            series_id = f"w{n}"
            db.execute("INSERT INTO league_series (id, n, name, duels, final, created_at) VALUES (?,?,?,?,?,?)",
                       (series_id, n, name, json.dumps(duels), json.dumps(final), core.now()))
            core.record(db, "series_created", {"name": name, "duels": duels, "final": final}, series=series_id)
        core.changed(series=series_id)
        return self.get(series_id)

    def set_final(self, series_id: Any, body: Any) -> dict:
        """The final series' games, once the teams that advanced have their games. Replacing a
        final already set is a correction: it needs a reason."""
        row = self._row(series_id)
        body = check.obj(body, {"games", "reason"}, {"games"})
        final = check.game_ids(body["games"], "games", lo=1, hi=2 * MAX_DUELS)
        why = check.reason(body.get("reason"), required=bool(row["final"]))
        history, current = self.overrides(row["id"])
        if row["final"] and final == row["final"]:
            raise check.bad("games", "the final already has exactly these games", "no_change")
        if FINAL in current:
            raise check.rule("final_overridden", "An override decides the final: withdraw it before changing the games.")
        self._check_final(row["duels"], final, current)
        core = self.core
        with core.store.transaction() as db:
            db.execute("UPDATE league_series SET final=? WHERE id=?", (json.dumps(final), row["id"]))
            core.record(db, "series_final_set", {"games": final, "before": row["final"]}, why, series=row["id"])
        core.changed(series=row["id"])
        return self.get(row["id"])

    def override(self, series_id: Any, body: Any) -> dict:
        row = self._row(series_id)
        body = check.obj(body, {"scope", "winner", "reason"}, {"scope", "reason"})
        scope = check.text(body["scope"], "scope", limit=20)
        winner = check.text(body.get("winner"), "winner", required=False)
        why = check.reason(body["reason"])
        history, current = self.overrides(row["id"])
        if winner is None:
            if scope not in current:
                raise check.rule("no_override", f"No override is in force for {scope}.", scope=scope)
            current.pop(scope)
        else:
            current[scope] = {"scope": scope, "winner": winner, "reason": why}
            # unknown scope or a team not playing in it: the rules' InputError (400) stops it here
            self._outcome(row["duels"], row["final"], current)
        core = self.core
        with core.store.transaction() as db:
            db.execute("INSERT INTO league_series_overrides (series_id, scope, winner, reason, at) VALUES (?,?,?,?,?)",
                       (row["id"], scope, winner, why, core.now()))
            core.record(db, "series_override" if winner else "series_override_withdrawn",
                        {"scope": scope, "winner": winner}, why, series=row["id"])
        core.changed(series=row["id"])
        return self.get(row["id"])
