"""The league's games, made from its own data: a holding's club game from its formed teams, the
Final's two tv games from the Final's teams (issue 25). And, for a game made anywhere else (the
panel's setup form, `POST /api/games`) that names a season, the same work: every player is
resolved to a member when the game is made and the member ids are stored in the game's spec, so
the rating counts members by id and renaming a member later moves no points.

A player who is no member is said then (a warning naming the player and the team), never later."""
from __future__ import annotations

from typing import Any

from ..rules.season import Stage
from . import check
from .core import Core
from .holdings import Holdings
from .members import Members, name_key
from .seasons import Seasons

FINAL_TEAMS = ("club", "central_table")


class GameMaker:
    def __init__(self, core: Core, members: Members, seasons: Seasons, holdings: Holdings,
                 final_teams: Any) -> None:
        self.core, self.members, self.seasons, self.holdings = core, members, seasons, holdings
        self.final_teams = final_teams  # Results.final_teams (the Final's players, as the page shows them)

    # the season's games, as the league reads them ------------------------------------------------

    def lives(self, season_id: str, *, rules: str | None = None) -> list[Any]:
        with self.core.sessions.lock:
            return [live for live in self.core.sessions.games.values()
                    if live.game.meta.get("season") == season_id and (rules is None or live.game.rules == rules)]

    def holding_games(self, holding_id: str) -> list[dict]:
        holding = self.seasons.holding(holding_id)
        return [{"game": live.id, "title": live.game.title, "status": live.game.status,
                 "score": dict(live.game.score), "stage": live.game.meta.get("stage")}
                for live in self.lives(holding["season_id"], rules="club") if live.game.game_day == holding["id"]]

    # making games ----------------------------------------------------------------------------------

    def make_holding_game(self, holding_id: Any, body: Any) -> dict:
        """The holding's club game, played by its formed teams: season, stage and game day are
        the holding's. A holding plays two games; the second remembers who lost a round."""
        holding = self.seasons.holding(holding_id)
        body = check.obj(body if body is not None else {}, {"title", "target"})
        title = check.text(body.get("title"), "title", required=False)
        target = check.whole(body.get("target", 6), "target", 1, 20)
        teams = [t for t in self.holdings.teams(holding["id"]) if t["members"]]
        if len(teams) < 2:
            raise check.rule("holding_no_teams", "Form the holding's teams first: a club game needs at least two.",
                             date=holding["date"])
        spec = {"rules": "club", "title": title or holding["id"], "target": target, "season": holding["season_id"],
                "stage": Stage.QUALIFYING.value, "game_day": holding["id"],
                "teams": [{"id": t["id"], "name": t["name"], "players": t["players"], "members": t["members"]}
                          for t in teams]}
        live = self.core.sessions.create(spec, source="league")
        with self.core.store.transaction() as db:
            self.core.record(db, "game_created", {"holding": holding["id"], "game": live.id,
                                                  "teams": [t["id"] for t in teams]}, season=holding["season_id"])
        self.core.changed(season=holding["season_id"])
        return {"id": live.id, "warnings": live.warnings}

    def make_final_games(self, season_id: Any, body: Any) -> dict:
        """The Final's two tv games, the Club team's first (it plays first), each with its six
        players as members. Refused while a Final game of that team exists."""
        season = self.seasons.get(season_id)
        body = check.obj(body if body is not None else {}, {"names", "title", "target"})
        names = check.obj(body.get("names") or {}, set(FINAL_TEAMS))
        title = check.text(body.get("title"), "title", required=False) or season["name"]
        target = check.whole(body.get("target", 6), "target", 1, 20)
        existing = {live.game.meta.get("final_team") for live in self.lives(season["id"], rules="tv")
                    if live.game.meta.get("stage") == Stage.FINAL}
        if existing & set(FINAL_TEAMS):
            raise check.rule("final_games_exist", "The Final's games are already made (see the Final page).")
        teams = self.final_teams(season["id"])
        made, warnings = [], []
        for team in FINAL_TEAMS:
            players = teams[team]
            if not players:
                raise check.rule("final_team_empty", f"The {team} team has no players yet.")
            name = check.text(names.get(team) or team, f"names.{team}")
            spec = {"rules": "tv", "title": f"{title} · {name}", "target": target, "season": season["id"],
                    "stage": Stage.FINAL.value, "final_team": team,
                    "experts": {"name": name, "players": [p["player"] for p in players],
                                "members": [p["member"] for p in players]}}
            live = self.core.sessions.create(spec, source="league")
            made.append(live.id)
            warnings += live.warnings
        if teams["pending"] or teams["free_places"]:
            warnings.append({"code": "final_teams_open", "pending": len(teams["pending"]),
                             "free": teams["free_places"]})
        with self.core.store.transaction() as db:
            self.core.record(db, "final_games_created", {"games": made}, season=season["id"])
        self.core.changed(season=season["id"])
        return {"games": made, "warnings": warnings}

    # any game that names a season: members by id, from the moment it is made ----------------------

    def prepare(self, spec: dict) -> list[dict]:
        """Sessions' preparer: resolve each player of a league game to a member and store the ids
        in the spec. Refuses an unknown member id or a member in two teams; warns about a player
        who is no member, an unknown season and a game day that is no holding of the season."""
        season_id = spec.get("season")
        if season_id is None:
            return []
        warnings: list[dict] = []
        known = {s["id"] for s in self.seasons.all()}
        if season_id not in known:
            return [{"code": "unknown_season", "season": season_id}]
        everyone = self.members.all()
        by_id = {m["id"]: m for m in everyone}
        if spec["rules"] == "club":
            holding = next((h for h in self.seasons.holdings(season_id) if h["id"] == spec.get("game_day")), None)
            if holding is None:
                warnings.append({"code": "not_a_holding", "game_day": spec.get("game_day")})
            formed = {t["id"]: t for t in self.holdings.teams(holding["id"])} if holding else {}
            registered = [p["member"] for r in self.holdings.registrations(holding["id"])
                          for p in r["players"]] if holding else []
            seen: dict[int, str] = {}
            for team in spec["teams"]:
                among = [by_id[m] for m in (formed[team["id"]]["members"] if team["id"] in formed else [])
                         if m in by_id] + [by_id[m] for m in registered if m in by_id]
                team["members"] = self._resolve(team, "members", team["players"], among, everyone, by_id,
                                                team["name"], warnings)
                for mid in team["members"]:
                    if mid is None:
                        continue
                    if mid in seen:
                        raise check.rule("member_in_two_teams",
                                         f"{by_id[mid]['name']} is in two teams' line-ups ({seen[mid]}, {team['name']}).",
                                         player=by_id[mid]["name"], team=seen[mid], other=team["name"])
                    seen[mid] = team["name"]
        elif spec.get("experts"):
            experts = spec["experts"]
            experts["members"] = self._resolve(experts, "members", experts["players"], [], everyone, by_id,
                                               experts["name"], warnings)
        return warnings

    @staticmethod
    def _resolve(holder: dict, key: str, players: list[str], among: list[dict], everyone: list[dict],
                 by_id: dict[int, dict], team: str, warnings: list[dict]) -> list[int | None]:
        given = holder.get(key)
        if given is not None:
            for mid in given:
                if mid is not None and mid not in by_id:
                    raise check.InputError("unknown_member", f"{team}: there is no member {mid}.", member=mid)
            out = list(given)
        else:
            out = []
            for name in players:
                key_ = name_key(name)
                found = [m for m in among if name_key(m["name"]) == key_]
                found = list({m["id"]: m for m in found}.values())
                if len(found) != 1:
                    found = [m for m in everyone if name_key(m["name"]) == key_]
                out.append(found[0]["id"] if len(found) == 1 else None)
        for name, mid in zip(players, out):
            if mid is None:
                warnings.append({"code": "not_a_member", "player": name, "team": team})
        return out
