"""One holding of a game day: registrations (individual or team), who is absent, the fees paid
in cash with a receipt number, and the teams the administration forms (seed 004, RULES.md §6).

Team formation is `overlay.rules.season.form_teams`; the teams it proposes are stored and the
administration may then edit every team, each edit recorded with its reason. A team's id is the
id a club game's spec gives it, so a game played by these teams names its players unambiguously.
"""
from __future__ import annotations

from typing import Any

from ..rules.season import MIN_TEAM, TEAM_SIZE, Player, TeamRegistration, form_teams
from . import check
from .core import Core
from .members import Members
from .schema import select
from .seasons import Seasons

KINDS = ("individual", "team")


class Holdings:
    def __init__(self, core: Core, members: Members, seasons: Seasons) -> None:
        self.core, self.members, self.seasons = core, members, seasons

    # reading ---------------------------------------------------------------------------------

    def registrations(self, holding_id: str, *, withdrawn: bool = False) -> list[dict]:
        regs = select(self.core.store, "id, kind, team_name, withdrawn, created_at",
                      "FROM league_registrations WHERE holding_id=? ORDER BY id", (holding_id,))
        if not withdrawn:
            regs = [r for r in regs if not r["withdrawn"]]
        players = select(self.core.store, "p.registration_id, p.member_id, p.absent, m.name",
                         "FROM league_registration_players p JOIN league_members m ON m.id=p.member_id "
                         "JOIN league_registrations r ON r.id=p.registration_id WHERE r.holding_id=? "
                         "ORDER BY p.registration_id, p.position", (holding_id,))
        paid = {p["registration_id"]: p for p in select(
            self.core.store, "y.registration_id, y.amount, y.currency, y.receipt, y.method, y.paid_at",
            "FROM league_payments y JOIN league_registrations r ON r.id=y.registration_id WHERE r.holding_id=?",
            (holding_id,))}
        for r in regs:
            r["withdrawn"] = bool(r["withdrawn"])
            r["players"] = [{"member": p["member_id"], "name": p["name"], "absent": bool(p["absent"])}
                            for p in players if p["registration_id"] == r["id"]]
            payment = paid.get(r["id"])
            r["payment"] = None if payment is None else {k: v for k, v in payment.items() if k != "registration_id"}
        return regs

    def registration(self, registration_id: Any) -> tuple[dict, dict]:
        """(registration, its holding)."""
        rows = select(self.core.store, "id, holding_id", "FROM league_registrations WHERE id=?",
                      (registration_id,)) if isinstance(registration_id, int) else []
        if not rows:
            raise check.NotFound("unknown_registration", f"There is no registration {registration_id!r}.",
                                 registration=registration_id)
        holding = self.seasons.holding(rows[0]["holding_id"])
        reg = next(r for r in self.registrations(holding["id"], withdrawn=True) if r["id"] == registration_id)
        return reg, holding

    def teams(self, holding_id: str) -> list[dict]:
        teams = select(self.core.store, "id, name, preformed", "FROM league_teams WHERE holding_id=? ORDER BY position",
                       (holding_id,))
        players = select(self.core.store, "t.team_id, t.member_id, t.filler, m.name",
                         "FROM league_team_players t JOIN league_members m ON m.id=t.member_id "
                         "WHERE t.holding_id=? ORDER BY t.position", (holding_id,))
        for t in teams:
            mine = [p for p in players if p["team_id"] == t["id"]]
            t["preformed"] = bool(t["preformed"])
            t["players"] = [p["name"] for p in mine]       # as a club game spec wants them
            t["members"] = [p["member_id"] for p in mine]
            t["fillers"] = [p["member_id"] for p in mine if p["filler"]]
        return teams

    def view(self, holding_id: Any) -> dict:
        holding = self.seasons.holding(holding_id)
        regs = self.registrations(holding["id"])
        teams = self.teams(holding["id"])
        placed = {m for t in teams for m in t["members"]}
        present = [p for r in regs for p in r["players"] if not p["absent"]]
        return {
            **holding,
            "registrations": regs,
            "teams": teams,
            "short": [t["id"] for t in teams if len(t["members"]) < MIN_TEAM],
            "unplaced": [p for p in present if p["member"] not in placed] if teams else [],
            "fees": self._fee_summary(regs),
        }

    @staticmethod
    def _fee_summary(regs: list[dict]) -> dict:
        paid = [r["payment"] for r in regs if r["payment"]]
        totals: dict[str, float] = {}
        for p in paid:
            totals[p["currency"]] = totals.get(p["currency"], 0) + p["amount"]
        return {"registrations": len(regs), "paid": len(paid), "unpaid": len(regs) - len(paid), "totals": totals}

    # registrations ---------------------------------------------------------------------------

    def register(self, holding_id: Any, body: Any) -> dict:
        holding = self.seasons.holding(holding_id)
        body = check.obj(body, {"member", "team", "members"})
        if ("member" in body) == ("team" in body or "members" in body):
            raise check.bad("body", 'send {"member": id} for an individual or {"team": name, "members": [ids]} for a team', "register_body")
        if "member" in body:
            kind, team_name = "individual", None
            ids = [check.member_id(body["member"], "member")]
        else:
            kind = "team"
            team_name = check.text(body.get("team"), "team")
            ids = check.ids(body.get("members"), "members", lo=1, hi=TEAM_SIZE)
        self.members.require_approved(ids, "members" if kind == "team" else "member")
        self._check_free(holding, ids, team_name)
        core = self.core
        with core.store.transaction() as db:
            cur = db.execute("INSERT INTO league_registrations (holding_id, kind, team_name, created_at) VALUES (?,?,?,?)",
                             (holding["id"], kind, team_name, core.now()))
            rid = cur.lastrowid
            db.executemany("INSERT INTO league_registration_players (registration_id, member_id, position) VALUES (?,?,?)",
                           [(rid, m, i) for i, m in enumerate(ids)])
            core.record(db, "registered", {"holding": holding["id"], "registration": rid, "kind": kind,
                                           "team": team_name, "members": ids}, season=holding["season_id"])
        core.changed(season=holding["season_id"])
        return self.registration(rid)[0]

    def _check_free(self, holding: dict, ids: list[int], team_name: str | None) -> None:
        """A member plays one holding per game day: Sunday and Wednesday share the questions."""
        same_day = [h for h in self.seasons.holdings(holding["season_id"]) if h["day"] == holding["day"]]
        for h in same_day:
            for r in self.registrations(h["id"]):
                if team_name and h["id"] == holding["id"] and r["team_name"] and \
                        r["team_name"].casefold() == team_name.casefold():
                    raise check.rule("team_name_taken", f"A team {r['team_name']!r} is already registered for this holding.",
                                     team=r["team_name"])
                for p in r["players"]:
                    if p["member"] in ids:
                        where = "this holding" if h["id"] == holding["id"] else \
                            f"the other holding of game day {h['day']} ({h['date']}), which plays the same questions"
                        raise check.rule("already_registered", f"{p['name']} is already registered for {where}.", name=p["name"],
                                         variant="here" if h["id"] == holding["id"] else "other",
                                         day=h["day"], date=h["date"])

    def withdraw(self, registration_id: Any, body: Any) -> dict:
        reg, holding = self.registration(registration_id)
        body = check.obj(body, {"reason", "confirm"}, {"reason"})
        why = check.reason(body["reason"])
        confirm = check.flag(body.get("confirm", False), "confirm")
        if reg["withdrawn"]:
            raise check.rule("already_withdrawn", f"Registration {reg['id']} is already withdrawn.", registration=reg["id"])
        ids = [p["member"] for p in reg["players"]]
        played = self._played(holding["id"], ids)
        if played and not confirm:
            who = reg["team_name"] or ", ".join(p["name"] for p in reg["players"])
            raise check.rule("withdraw_played",
                             f"{who} already played at this holding ({', '.join(played)}): the points of those "
                             "games stay in the rating and the players leave their teams. Confirm to withdraw.",
                             who=who, games=", ".join(played))
        removed = [(t["id"], m) for t in self.teams(holding["id"]) for m in t["members"] if m in ids]
        core = self.core
        with core.store.transaction() as db:
            db.execute("UPDATE league_registrations SET withdrawn=1 WHERE id=?", (reg["id"],))
            for _, m in removed:  # said in the record: the players leave their formed teams too
                db.execute("DELETE FROM league_team_players WHERE holding_id=? AND member_id=?", (holding["id"], m))
            core.record(db, "registration_withdrawn",
                        {"registration": reg["id"], "holding": holding["id"],
                         "removed_from_teams": [{"team": t, "member": m} for t, m in removed],
                         **({"played": played} if played else {})},
                        why, season=holding["season_id"])
        core.changed(season=holding["season_id"])
        return self.registration(reg["id"])[0]

    def _played(self, holding_id: str, member_ids: list[int]) -> list[str]:
        """The holding's games (titles) in which one of these members is in a line-up."""
        out = []
        with self.core.sessions.lock:
            lives = [live for live in self.core.sessions.games.values()
                     if live.game.rules == "club" and live.game.game_day == holding_id]
        for live in lives:
            stored = [m for t in live.spec.get("teams", []) for m in (t.get("members") or [])]
            if set(stored) & set(member_ids):
                out.append(live.game.title or live.id)
        return out

    def set_absent(self, registration_id: Any, body: Any) -> dict:
        reg, holding = self.registration(registration_id)
        body = check.obj(body, {"member", "absent", "reason"}, {"member", "absent"})
        mid = check.member_id(body["member"], "member")
        absent = check.flag(body["absent"], "absent")
        why = check.reason(body.get("reason"), required=False)
        if reg["withdrawn"]:
            raise check.rule("withdrawn", f"Registration {reg['id']} is withdrawn.", registration=reg["id"])
        player = next((p for p in reg["players"] if p["member"] == mid), None)
        if player is None:
            raise check.bad("member", f"member {mid} is not in registration {reg['id']}", "not_in_registration",
                            registration=reg["id"])
        if player["absent"] == absent:
            raise check.rule("no_change", f"{player['name']} is already marked {'absent' if absent else 'present'}.",
                             name=player["name"], variant="absent" if absent else "present")
        core = self.core
        with core.store.transaction() as db:
            db.execute("UPDATE league_registration_players SET absent=? WHERE registration_id=? AND member_id=?",
                       (int(absent), reg["id"], mid))
            core.record(db, "absent" if absent else "present",
                        {"registration": reg["id"], "holding": holding["id"], "member": mid}, why,
                        season=holding["season_id"])
        return self.registration(reg["id"])[0]

    def pay(self, registration_id: Any, body: Any) -> dict:
        """The fee, paid in cash on site against a receipt (seed 004). Changing a recorded payment
        is a correction and needs a reason."""
        reg, holding = self.registration(registration_id)
        body = check.obj(body, {"receipt", "amount", "reason"})
        if body.get("amount") == 0 and not isinstance(body.get("amount"), bool):
            return self._unpay(reg, holding, body)
        if body.get("receipt") is None:
            raise check.bad("receipt", "is required")
        receipt = check.text(body["receipt"], "receipt", limit=60)
        season = self.seasons.get(holding["season_id"])
        self._check_receipt(reg, holding, receipt)  # type: ignore[arg-type]
        default = season["fees"][reg["kind"]]
        if body.get("amount") is None and default is None:
            raise check.bad("amount", f"the season has no {reg['kind']} fee set: give the amount paid", "no_fee")
        paid = check.amount(body["amount"], "amount") if body.get("amount") is not None else default
        why = check.reason(body.get("reason"), required=reg["payment"] is not None)
        if reg["withdrawn"]:
            raise check.rule("withdrawn", f"Registration {reg['id']} is withdrawn: no fee is taken.", registration=reg["id"])
        core = self.core
        record = {"registration": reg["id"], "holding": holding["id"], "kind": reg["kind"], "amount": paid,
                  "currency": season["fees"]["currency"], "receipt": receipt, "method": "cash"}
        with core.store.transaction() as db:
            db.execute("INSERT INTO league_payments (registration_id, amount, currency, receipt, method, paid_at) "
                       "VALUES (?,?,?,?,?,?) ON CONFLICT(registration_id) DO UPDATE SET amount=excluded.amount, "
                       "currency=excluded.currency, receipt=excluded.receipt, paid_at=excluded.paid_at",
                       (reg["id"], paid, season["fees"]["currency"], receipt, "cash", core.now()))
            if reg["payment"]:
                record["before"] = reg["payment"]
            core.record(db, "fee_corrected" if reg["payment"] else "fee_paid", record, why, season=holding["season_id"])
        return self.registration(reg["id"])[0]

    def _check_receipt(self, reg: dict, holding: dict, receipt: str) -> None:
        """One receipt is one cash payment: the same number for a second registration of the
        season is a typo or a fee counted twice, so it is refused (nothing is stored); the
        secretary corrects whichever entry is wrong first."""
        rows = select(self.core.store, "y.registration_id, y.receipt, r.holding_id, r.kind, r.team_name",
                      "FROM league_payments y JOIN league_registrations r ON r.id=y.registration_id "
                      "JOIN league_holdings h ON h.id=r.holding_id WHERE h.season_id=? AND y.registration_id<>?",
                      (holding["season_id"], reg["id"]))
        clash = next((r for r in rows if r["receipt"].casefold() == receipt.casefold()), None)
        if clash is None:
            return
        other, other_holding = self.registration(clash["registration_id"])
        who = other["team_name"] or ", ".join(p["name"] for p in other["players"])
        raise check.rule("receipt_taken", f"Receipt {receipt} is already recorded for {who} "
                         f"({other_holding['date']}).", receipt=receipt, who=who, date=other_holding["date"])

    def _unpay(self, reg: dict, holding: dict, body: dict) -> dict:
        """A recorded fee corrected to 0: the registration is unpaid again (a recorded correction)."""
        if reg["payment"] is None:
            raise check.rule("fee_not_paid", "No fee is recorded for this registration: nothing to undo.")
        why = check.reason(body.get("reason"))
        core = self.core
        with core.store.transaction() as db:
            db.execute("DELETE FROM league_payments WHERE registration_id=?", (reg["id"],))
            core.record(db, "fee_undone", {"registration": reg["id"], "holding": holding["id"],
                                           "before": reg["payment"]}, why, season=holding["season_id"])
        core.changed(season=holding["season_id"])
        return self.registration(reg["id"])[0]

    # teams -----------------------------------------------------------------------------------

    def form(self, holding_id: Any, body: Any) -> dict:
        """Form the holding's teams by the rules. Forming again replaces the teams (and every
        edit made to them), so it needs a reason."""
        holding = self.seasons.holding(holding_id)
        body = check.obj(body if body is not None else {}, {"reason", "name_format"})
        existing = self.teams(holding["id"])
        why = check.reason(body.get("reason"), required=bool(existing))
        name_format = check.text(body.get("name_format", "Команда {n}"), "name_format", limit=60)
        if "{n}" not in name_format:  # type: ignore[operator]
            raise check.bad("name_format", "must contain {n} (the team's number)", "name_format")
        regs = self.registrations(holding["id"])
        person = lambda p: Player(p["name"], p["member"])  # noqa: E731
        preformed = [TeamRegistration(r["team_name"], tuple(person(p) for p in r["players"]),
                                      tuple(person(p) for p in r["players"] if p["absent"]))
                     for r in regs if r["kind"] == "team"]
        individuals = [person(p) for r in regs if r["kind"] == "individual" for p in r["players"] if not p["absent"]]
        formation = form_teams(preformed, individuals)
        core = self.core
        counter = 0
        rows = []
        for i, team in enumerate(formation.teams, start=1):
            if team.name is None:
                counter += 1
            name = team.name or name_format.replace("{n}", str(counter))  # type: ignore[union-attr]
            fillers = {p.key for p in team.fillers}
            rows.append((f"t{i}", name, team.preformed,
                         [(p.member_id, p.key in fillers) for p in team.players]))
        with core.store.transaction() as db:
            db.execute("DELETE FROM league_team_players WHERE holding_id=?", (holding["id"],))
            db.execute("DELETE FROM league_teams WHERE holding_id=?", (holding["id"],))
            for pos, (tid, name, pre, players) in enumerate(rows):
                db.execute("INSERT INTO league_teams (holding_id, id, position, name, preformed) VALUES (?,?,?,?,?)",
                           (holding["id"], tid, pos, name, int(pre)))
                db.executemany("INSERT INTO league_team_players (holding_id, team_id, member_id, position, filler) "
                               "VALUES (?,?,?,?,?)", [(holding["id"], tid, m, j, int(f)) for j, (m, f) in enumerate(players)])
            core.record(db, "teams_formed" if not existing else "teams_reformed",
                        {"holding": holding["id"],
                         "teams": [{"id": t, "name": n, "members": [m for m, _ in p]} for t, n, _, p in rows],
                         "unplaced": [p.member_id for p in formation.unplaced], "short": list(formation.short),
                         **({"replaced": [{"id": t["id"], "members": t["members"]} for t in existing]} if existing else {})},
                        why, season=holding["season_id"])
        core.changed(season=holding["season_id"])
        out = self.view(holding["id"])
        out["formation"] = {"unplaced": [{"member": p.member_id, "name": p.name} for p in formation.unplaced],
                            "short": [t for t, n, _, _ in rows if n in formation.short]}
        return out

    def _team(self, holding_id: str, team_id: Any) -> dict:
        team = next((t for t in self.teams(holding_id) if t["id"] == team_id), None)
        if team is None:
            raise check.NotFound("unknown_team", f"There is no team {team_id!r} in holding {holding_id}.", team=team_id)
        return team

    def _lineup(self, holding: dict, value: Any) -> list[int]:
        ids = check.ids(value, "members", lo=1, hi=TEAM_SIZE)
        found = self.members.require_approved(ids, "members")
        registered = {p["member"]: p for r in self.registrations(holding["id"]) for p in r["players"]}
        for mid in ids:
            if mid not in registered:
                raise check.rule("not_registered", f"Member {mid} is not registered for this holding: register them first "
                                                   "(the fee follows the registration).", name=found[mid]["name"])
            if registered[mid]["absent"]:
                raise check.rule("absent", f"{registered[mid]['name']} is marked absent at this holding.",
                                 name=registered[mid]["name"])
        return ids

    def edit_team(self, holding_id: Any, team_id: Any, body: Any, *, new: bool = False) -> dict:
        """Rename a team or set its line-up. A member taken from another team leaves that team,
        and the record says so; a team left empty is removed (also recorded)."""
        holding = self.seasons.holding(holding_id)
        body = check.obj(body, {"name", "members", "reason"}, {"reason"} | ({"name", "members"} if new else set()))
        why = check.reason(body["reason"])
        teams = self.teams(holding["id"])
        team = None if new else self._team(holding["id"], team_id)
        name = check.text(body["name"], "name") if "name" in body else team["name"]  # type: ignore[index]
        ids = self._lineup(holding, body["members"]) if "members" in body else team["members"]  # type: ignore[index]
        clash = [t for t in teams if t["name"].casefold() == name.casefold() and (team is None or t["id"] != team["id"])]
        if clash:
            raise check.rule("team_name_taken", f"Team {clash[0]['id']} is already called {name!r}.", team=name)
        if team and name == team["name"] and ids == team["members"]:
            raise check.bad("body", "changes nothing: send a new name or line-up", "no_change")
        if new:
            team_id = f"t{max([int(t['id'][1:]) for t in teams if t['id'][1:].isdigit()] + [0]) + 1}"
        moved = [{"member": m, "from": t["id"]} for t in teams if team is None or t["id"] != team["id"]
                 for m in t["members"] if m in ids]
        emptied = [t["id"] for t in teams if (team is None or t["id"] != team["id"])
                   and t["members"] and all(m in ids for m in t["members"])]
        core = self.core
        with core.store.transaction() as db:
            if new:
                pos = db.execute("SELECT COALESCE(MAX(position), -1) + 1 FROM league_teams WHERE holding_id=?",
                                 (holding["id"],)).fetchone()[0]
                db.execute("INSERT INTO league_teams (holding_id, id, position, name, preformed) VALUES (?,?,?,?,0)",
                           (holding["id"], team_id, pos, name))
            else:
                db.execute("UPDATE league_teams SET name=? WHERE holding_id=? AND id=?", (name, holding["id"], team_id))
            fillers = set(team["fillers"]) if team else set()
            db.execute("DELETE FROM league_team_players WHERE holding_id=? AND (team_id=? OR member_id IN (%s))"
                       % ",".join("?" * len(ids)), (holding["id"], team_id, *ids))
            db.executemany("INSERT INTO league_team_players (holding_id, team_id, member_id, position, filler) "
                           "VALUES (?,?,?,?,?)", [(holding["id"], team_id, m, j, int(m in fillers)) for j, m in enumerate(ids)])
            for tid in emptied:
                db.execute("DELETE FROM league_teams WHERE holding_id=? AND id=?", (holding["id"], tid))
            before = None if team is None else {"name": team["name"], "members": team["members"]}
            core.record(db, "team_added" if new else "team_edited",
                        {"holding": holding["id"], "team": team_id, "before": before,
                         "after": {"name": name, "members": ids}, "moved": moved, "removed_empty": emptied},
                        why, season=holding["season_id"])
        core.changed(season=holding["season_id"])
        return self.view(holding["id"])

    def delete_team(self, holding_id: Any, team_id: Any, body: Any) -> dict:
        holding = self.seasons.holding(holding_id)
        body = check.obj(body, {"reason"}, {"reason"})
        why = check.reason(body["reason"])
        team = self._team(holding["id"], team_id)
        core = self.core
        with core.store.transaction() as db:
            db.execute("DELETE FROM league_team_players WHERE holding_id=? AND team_id=?", (holding["id"], team["id"]))
            db.execute("DELETE FROM league_teams WHERE holding_id=? AND id=?", (holding["id"], team["id"]))
            core.record(db, "team_removed", {"holding": holding["id"], "team": team["id"], "name": team["name"],
                                             "members": team["members"]}, why, season=holding["season_id"])
        core.changed(season=holding["season_id"])
        return self.view(holding["id"])
