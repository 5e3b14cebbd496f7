"""What the season's games say, computed from the live games every time it is asked (no copy
to go stale): the individual rating, the best players of the Central Table, the Final's teams,
the Final's winner and the awards. The rules are `overlay.rules.season`; this module only
gathers their inputs — the finished games, the administration's recorded choices — and shapes
the answers. A game that cannot count is listed with the reason, never dropped silently."""
from __future__ import annotations

import json
from typing import Any

from ..rules.errors import InputError
from ..rules.season import (
    AdminChoice, BestPlayerNamed, FinalTeams, Player, RatingAdjustment, RatingRow, Stage, TeamGameRecord,
    best_players, final_outcome, individual_rating, propose_final_teams)
from ..rules.standings import GameResult, better
from ..rules.state import Game
from . import check
from .core import Core
from .finish import FinishOrder
from .holdings import Holdings
from .members import Members
from .schema import select
from .seasons import Seasons

CHOICES = ("central_pick", "central_fill", "club_claims", "declined", "club_tie")
FINAL_TEAMS = ("club", "central_table")


def player_json(p: Player) -> dict:
    return {"player": p.name, "member": p.member_id if isinstance(p.member_id, int) else None}


class Results:
    def __init__(self, core: Core, members: Members, seasons: Seasons, holdings: Holdings,
                 finish: FinishOrder) -> None:
        self.core, self.members, self.seasons, self.holdings, self.finish = core, members, seasons, holdings, finish

    # the season's games ------------------------------------------------------------------------

    def games(self, season_id: str) -> list[Game]:
        return [live.game for live in self.lives(season_id)]

    def lives(self, season_id: str) -> list[Any]:
        with self.core.sessions.lock:
            return [live for live in self.core.sessions.games.values() if live.game.meta.get("season") == season_id]

    @staticmethod
    def lineup(names: list[str], members: list[int | None] | None, by_id: dict[int, dict]) -> tuple[Player, ...] | None:
        """A line-up by the member ids stored when the game was made (None: a game made before
        they were stored). A member is shown by today's name: a rename moves nothing."""
        if members is None:
            return None
        return tuple(Player(by_id[m]["name"], m) if m in by_id else Player(" ".join(name.split()))
                     for name, m in zip(names, members))

    def qualifying(self, season: dict) -> dict[str, Any]:
        """The rating's inputs: one record per team and game, the best players named, and the
        games left out (with why) or still being played."""
        holdings = {h["id"]: h for h in self.seasons.holdings(season["id"])}
        team_cache: dict[str, dict[str, dict]] = {}
        records: list[TeamGameRecord] = []
        named: list[BestPlayerNamed] = []
        ignored: list[dict] = []
        playing: list[str] = []
        counted: list[dict] = []
        everyone = self.members.all()
        by_id = {m["id"]: m for m in everyone}
        for live in self.lives(season["id"]):
            game = live.game
            stored = {t["id"]: t.get("members") for t in live.spec.get("teams", [])}
            if game.rules != "club":
                continue  # the Final's tv games: see `final`
            stage = game.meta.get("stage")
            # each left-out game: a code and what it names (the pages say it from the catalogs,
            # `league.ignored.<code>`), and the English `reason` for the API's programmers
            if stage != Stage.QUALIFYING:
                if stage == Stage.FINAL:
                    ignored.append({"game": game.id, "title": game.title, "code": "final_stage",
                                    "reason": "a club game at the Final stage: the rating counts qualifying games only"})
                elif stage is None:
                    ignored.append({"game": game.id, "title": game.title, "code": "no_stage",
                                    "reason": 'no stage: create it with "stage": "qualifying"'})
                else:
                    ignored.append({"game": game.id, "title": game.title, "code": "unknown_stage", "stage": str(stage),
                                    "reason": f"unknown stage {stage!r} (qualifying or final)"})
                continue
            holding = holdings.get(game.game_day or "")
            if holding is None:
                ignored.append({"game": game.id, "title": game.title, "code": "not_a_holding",
                                "game_day": game.game_day or "",
                                "reason": f"game_day {game.game_day!r} is not a holding of season "
                                          f"{season['id']} (schedule the game day first)"})
                continue
            if game.status != "finished":
                playing.append(game.id)
                continue
            if holding["id"] not in team_cache:
                team_cache[holding["id"]] = {t["id"]: t for t in self.holdings.teams(holding["id"])}
            formed = team_cache[holding["id"]]
            lineups = {}
            for team in game.teams:
                lineup = self.lineup(team.players, stored.get(team.id), by_id)
                if lineup is None:  # made before member ids were stored: by name, as then
                    known = formed.get(team.id)
                    among = [m for m in everyone if known and m["id"] in known["members"]]
                    lineup = tuple(self.members.resolve(name, among, everyone) for name in team.players)
                lineups[team.id] = lineup
            keys = [p.key for lineup in lineups.values() for p in lineup]
            if len(set(keys)) != len(keys):
                twice = next(p for lineup in lineups.values() for p in lineup if keys.count(p.key) > 1)
                teams = [t.name for t in game.teams if any(p.key == twice.key for p in lineups[t.id])]
                ignored.append({"game": game.id, "title": game.title, "code": "player_twice", "player": twice.name,
                                "teams": teams,
                                "reason": f"a player ({twice.name}) is in two teams' line-ups; "
                                          "correct the line-ups (player names) and create the game again"})
                continue
            for team in game.teams:
                records.append(TeamGameRecord(game.id, holding["day"], holding["id"], Stage.QUALIFYING, team.id,
                                              lineups[team.id], team.correct, team.central_correct))
            if game.best_player:
                seat = next((t for t in game.teams if game.best_player in t.players and t.id in game.seated), None)
                lineup = lineups[seat.id] if seat else ()
                best = next((p for p, name in zip(lineup, seat.players if seat else []) if name == game.best_player),
                            Player(game.best_player))
                named.append(BestPlayerNamed(game.id, holding["day"], Stage.QUALIFYING, best))
            counted.append({"game": game.id, "holding": holding["id"], "day": holding["day"],
                            "best_player": game.best_player})
        return {"records": records, "named": named, "ignored": ignored, "playing": playing, "counted": counted}

    # rating ------------------------------------------------------------------------------------

    def adjustments(self, season_id: str) -> list[dict]:
        rows = select(self.core.store, "id, member_id, name, points, day, reason, at",
                      "FROM league_adjustments WHERE season_id=? ORDER BY id", (season_id,))
        names = {m["id"]: m["name"] for m in self.members.all()}
        for r in rows:
            r["member"] = r.pop("member_id")
            if r["member"] in names:
                r["name"] = names[r["member"]]
        return rows

    def rating_rows(self, season: dict) -> tuple[tuple[RatingRow, ...], dict]:
        inputs = self.qualifying(season)
        adj = [RatingAdjustment(Player(a["name"], a["member"]), a["points"], a["day"], a["reason"])
               for a in self.adjustments(season["id"])]
        rows = individual_rating(inputs["records"], season["qualifying_days"], adj)
        return rows, inputs

    def rating(self, season_id: Any) -> dict:
        season = self.seasons.get(season_id)
        rows, inputs = self.rating_rows(season)
        adjustments = self.adjustments(season["id"])
        # the last game day anything counted on: the days after it are not played yet
        played = max([g["day"] for g in inputs["counted"]] + [a["day"] for a in adjustments], default=0)

        def per_day(progression: tuple[int, ...]) -> list[int]:  # each day's own points
            return [v - (progression[i - 1] if i else 0) for i, v in enumerate(progression[:played])]
        return {
            "season": season["id"], "days": season["qualifying_days"], "played_days": played,
            "rating": [{**player_json(r.player), "points": r.points, "games": r.games, "place": r.place,
                        "progression": list(r.progression), "per_day": per_day(r.progression),
                        "adjustment": r.adjustment} for r in rows],
            "games": inputs["counted"], "ignored": inputs["ignored"], "playing": inputs["playing"],
            "adjustments": adjustments,
        }

    def adjust(self, season_id: Any, body: Any) -> dict:
        """A manual rating correction (a disputed answer, say): points ± on a game day, with why."""
        season = self.seasons.get(season_id)
        body = check.obj(body, {"player", "points", "day", "reason"}, {"player", "points", "day", "reason"})
        player = self.members.ref(body["player"], "player")
        points = check.whole(body["points"], "points", -100, 100)
        if points == 0:
            raise check.bad("points", "must not be 0 (a correction changes the rating)", "zero")
        day = check.whole(body["day"], "day", 1, season["qualifying_days"])
        why = check.reason(body["reason"])
        core = self.core
        member = player.member_id if isinstance(player.member_id, int) else None
        with core.store.transaction() as db:
            cur = db.execute("INSERT INTO league_adjustments (season_id, member_id, name, points, day, reason, at) "
                             "VALUES (?,?,?,?,?,?,?)", (season["id"], member, player.name, points, day, why, core.now()))
            core.record(db, "rating_adjusted", {"adjustment": cur.lastrowid, **player_json(player), "points": points,
                                                "day": day}, why, season=season["id"])
        core.changed(season=season["id"])
        return self.rating(season["id"])

    # best players ------------------------------------------------------------------------------

    def best(self, season_id: Any) -> dict:
        season = self.seasons.get(season_id)
        inputs = self.qualifying(season)
        return {"season": season["id"],
                "best_players": [{**player_json(b.player), "times": b.times, "games": list(b.games)}
                                 for b in best_players(inputs["named"])]}

    # the Final's teams ---------------------------------------------------------------------------

    def choices(self, season_id: str) -> dict[str, dict]:
        """The latest recorded choice of each kind (the earlier ones stay in the action log)."""
        names = {m["id"]: m["name"] for m in self.members.all()}
        latest: dict[str, dict] = {}
        for r in select(self.core.store, "id, kind, players, reason, at",
                        "FROM league_final_choices WHERE season_id=? ORDER BY id", (season_id,)):
            players = [{"player": names.get(p["member"], p["player"]), "member": p["member"]}
                       for p in json.loads(r["players"])]
            latest[r["kind"]] = {"players": players, "reason": r["reason"], "at": r["at"]}
        return latest

    @staticmethod
    def _admin(choice: dict | None) -> AdminChoice | None:
        if not choice or not choice["players"]:
            return None
        return AdminChoice(tuple(Player(p["player"], p["member"]) for p in choice["players"]), choice["reason"])

    def _propose(self, season: dict, choices: dict[str, dict]) -> tuple[FinalTeams, tuple[RatingRow, ...]]:
        rows, inputs = self.rating_rows(season)
        best = [b.player for b in best_players(inputs["named"])]
        teams = propose_final_teams(rows, best, **{k: self._admin(choices.get(k)) for k in CHOICES})
        return teams, rows

    def final_teams(self, season_id: Any) -> dict:
        season = self.seasons.get(season_id)
        choices = self.choices(season["id"])
        try:
            teams, _ = self._propose(season, choices)
        except InputError as exc:
            raise check.rule("final_choice_stale",
                             f"A recorded choice no longer fits the season's results ({exc.message}). "
                             "Record the choice again (POST /api/seasons/<id>/final-teams/choices).", cause=exc) from exc
        member = lambda m: {**player_json(m.player), "rule": str(m.rule), "points": m.points}  # noqa: E731
        points = {r.player.key: r.points for r in self.rating_rows(season)[0]}
        return {
            "season": season["id"],
            "central_table": [member(m) for m in teams.central_table],
            "club": [member(m) for m in teams.club],
            "free_places": teams.free_places,
            "invite": [{**player_json(p), "points": points.get(p.key, 0)} for p in teams.invite],
            "declined": [player_json(p) for p in teams.declined],
            "pending": [str(p) for p in teams.pending],
            "choices": choices,
        }

    def choose(self, season_id: Any, body: Any) -> dict:
        """Record one administrative choice for the Final's teams; refused (and nothing stored)
        when the rules do not allow it with the season's results as they stand."""
        season = self.seasons.get(season_id)
        body = check.obj(body, {"kind", "players", "reason"}, {"kind", "reason"})
        kind = body["kind"]
        if kind not in CHOICES:
            raise check.bad("kind", f"must be one of {', '.join(CHOICES)}", "choice_kind")
        raw = body.get("players", [])
        if not isinstance(raw, list) or len(raw) > 40:
            raise check.bad("players", "must be a list of member ids or names ([] withdraws the choice)", "players")
        players = [self.members.ref(v, f"players[{i}]") for i, v in enumerate(raw)]
        if len({p.key for p in players}) != len(players):
            raise check.bad("players", "names a player twice", "twice")
        why = check.reason(body["reason"])
        choices = self.choices(season["id"])
        choices[kind] = {"players": [player_json(p) for p in players], "reason": why}
        self._propose(season, choices)  # the rules' refusal (422) stops it here
        core = self.core
        with core.store.transaction() as db:
            db.execute("INSERT INTO league_final_choices (season_id, kind, players, reason, at) VALUES (?,?,?,?,?)",
                       (season["id"], kind, json.dumps([player_json(p) for p in players], ensure_ascii=False),
                        why, core.now()))
            core.record(db, "final_choice", {"kind": kind, "players": [player_json(p) for p in players]}, why,
                        season=season["id"])
        core.changed(season=season["id"])
        return self.final_teams(season["id"])

    # the Final ---------------------------------------------------------------------------------

    def final(self, season_id: Any) -> dict:
        """The Final: the Club team's tv game, then the Central Table team's. The larger margin wins;
        equal scores go to the team that played second (seed 004)."""
        season = self.seasons.get(season_id)
        order = self.finish.order()
        games, problems = [], []
        by_team: dict[str, list[Game]] = {t: [] for t in FINAL_TEAMS}
        lives = {live.id: live.spec for live in self.lives(season["id"])}
        for game in self.games(season["id"]):
            if game.rules != "tv" or game.meta.get("stage") != Stage.FINAL:
                continue
            team = game.meta.get("final_team")
            if team not in FINAL_TEAMS:
                problems.append({"code": "final_team", "game": game.id, "title": game.title, "final_team": str(team),
                                 "message": f"game {game.id}: final_team must be \"club\" or \"central_table\", not {team!r}"})
                continue
            by_team[team].append(game)
            games.append({"game": game.id, "final_team": team, "team": (game.experts or {}).get("name"),
                          "players": list((game.experts or {}).get("players") or []),
                          "members": ((lives.get(game.id) or {}).get("experts") or {}).get("members"),
                          "score": dict(game.score), "status": game.status, "winner": game.winner,
                          "finished": order.get(game.id)})
        for team, found in by_team.items():
            if len(found) > 1:
                problems.append({"code": "final_games_twice", "team": team, "n": len(found),
                                 "games": [g.id for g in found], "titles": [g.title for g in found],
                                 "message": f"{len(found)} Final games for the {team} team "
                                            f"({', '.join(g.id for g in found)}): there must be one; "
                                            "the winner waits until only one remains"})
        winner = None
        if not problems and all(by_team.values()):
            club, central = by_team["club"][0], by_team["central_table"][0]
            results = {}
            for team, g in (("club", club), ("central_table", central)):
                results[team] = GameResult(g.id, team, g.score["experts"], g.score["viewers"],
                                           order.get(g.id, 0), g.status == "finished")
            if results["club"].finished and results["central_table"].finished:
                if order.get(club.id, 0) <= order.get(central.id, 0):
                    winner = final_outcome(results["club"], results["central_table"])
                else:
                    problems.append({"code": "final_order", "message": "the Central Table team's game finished before "
                                     "the Club team's: equal scores go to the team that played second"})
                    winner = better(results["club"], results["central_table"]).team
        games.sort(key=lambda g: FINAL_TEAMS.index(g["final_team"]))
        return {"season": season["id"], "winner": winner, "games": games, "problems": problems}

    # awards ------------------------------------------------------------------------------------

    def awards(self, season_id: Any) -> dict:
        season = self.seasons.get(season_id)
        final = self.final(season["id"])
        team = next((g for g in final["games"] if g["final_team"] == final["winner"]), None)
        everyone = self.members.all()
        by_id = {m["id"]: m for m in everyone}
        lineup = self.lineup(team["players"], team["members"], by_id) if team else None
        if team and lineup is None:
            lineup = tuple(self.members.resolve(p, everyone=everyone) for p in team["players"])
        winners = [player_json(p) for p in lineup or ()]
        rows = select(self.core.store, "body, reason, at", "FROM league_awards WHERE season_id=? AND kind=? ORDER BY id",
                      (season["id"], "crystal_sphinx"))
        sphinx = [{**json.loads(r["body"]), "reason": r["reason"], "at": r["at"]} for r in rows]
        for award in sphinx:  # today's name of the member
            if award.get("member") in by_id:
                award["player"] = by_id[award["member"]]["name"]
        return {"season": season["id"], "winner": final["winner"], "team": team["team"] if team else None,
                # every player of the winning team: a memorial sign and the crimson jacket
                "winners": winners, "crystal_sphinx": sphinx[-1] if sphinx else None, "history": sphinx}

    def award(self, season_id: Any, body: Any) -> dict:
        """The Crystal Sphinx: one player of the Final's winning team, best player of the season."""
        season = self.seasons.get(season_id)
        body = check.obj(body, {"crystal_sphinx", "reason"}, {"crystal_sphinx", "reason"})
        player = self.members.ref(body["crystal_sphinx"], "crystal_sphinx")
        why = check.reason(body["reason"])
        current = self.awards(season["id"])
        if current["winner"] is None:
            raise check.rule("final_not_decided", "The Final has no winner yet: the Crystal Sphinx goes to a player of the winning team.")
        if player.key not in {Player(w["player"], w["member"]).key for w in current["winners"]}:
            raise check.rule("not_a_winner", f"{player.name} is not in the winning team ({current['team']}).",
                             name=player.name, team=current["team"])
        core = self.core
        with core.store.transaction() as db:
            db.execute("INSERT INTO league_awards (season_id, kind, body, reason, at) VALUES (?,?,?,?,?)",
                       (season["id"], "crystal_sphinx", json.dumps(player_json(player), ensure_ascii=False), why, core.now()))
            core.record(db, "crystal_sphinx", player_json(player), why, season=season["id"])
        core.changed(season=season["id"])
        return self.awards(season["id"])
